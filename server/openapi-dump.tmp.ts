import { writeFileSync } from 'node:fs';
import { createTestContext } from './src/test-support/app.ts';
const ctx = await createTestContext();
const res = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
writeFileSync(process.argv[2]!, JSON.stringify(JSON.parse(res.body), null, 2));
await ctx.close();
process.exit(0);
