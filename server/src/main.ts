// Tollbooth's command line: the compiled server/dist/main.js (npm start) and src/main.ts (npm run dev).
//   (no command) or start   check, migrate (MIGRATE_ON_START), serve; drain on SIGTERM (lifecycle/)
//   migrate                 apply pending migrations under the advisory lock, then exit (a release job)
//   operator grant EMAIL    verify the email of the operator's local account (operator/grant.ts)
// A refused command prints one line per problem, naming the variable to fix, and exits 1 having written nothing.

import { readSchemaState } from './db/migrate.ts';
import { openCheckedDatabase, readConfig, runMigrate, runStart, StartRefused } from './lifecycle/start.ts';
import { describeGrant, grantOperator } from './operator/grant.ts';

const USAGE = 'usage: main.js [start] | migrate | operator grant EMAIL';

async function operator(args: string[]): Promise<number> {
  const [action, email] = args;
  if (action !== 'grant' || !email) {
    console.error(`usage: npm run operator -- grant EMAIL   (the image: node server/dist/main.js operator grant EMAIL)`);
    return 2;
  }
  if (process.env.OIDC_ISSUER?.trim()) {
    throw new StartRefused([
      'OIDC_ISSUER is set: accounts belong to your identity provider, which verifies emails (Tollbooth reads its email_verified claim); list the email in ADMIN_EMAILS',
    ]);
  }
  const config = readConfig({ DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR, ADMIN_EMAILS: process.env.ADMIN_EMAILS });
  const opened = await openCheckedDatabase(config);
  try {
    const { pending } = await readSchemaState(opened.db);
    if (pending.length > 0)
      throw new StartRefused([
        `${config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR'}: the database is not migrated yet: start the server once, or run \`npm run migrate\``,
      ]);
    const { ok, lines } = describeGrant(await grantOperator(opened.db, email, config.adminEmails));
    for (const line of lines) (ok ? console.log : console.error)(line);
    return ok ? 0 : 1;
  } finally {
    await opened.close();
  }
}

async function main(): Promise<void> {
  const [command = 'start', ...args] = process.argv.slice(2);
  try {
    if (command === 'start') return await runStart();
    if (command === 'migrate') return await runMigrate();
    if (command === 'operator') process.exit(await operator(args));
    console.error(USAGE);
    process.exit(2);
  } catch (error) {
    if (!(error instanceof StartRefused)) throw error;
    for (const line of error.lines) console.error(`Tollbooth ${command === 'start' ? 'did not start' : `${command}: refused`}: ${line}`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
