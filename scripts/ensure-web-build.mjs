// Runs before `npm start`: builds the web app when web/dist is missing or older than its sources,
// so `npm install && npm start` works on a fresh clone and later starts skip the build.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const builtIndex = path.join(root, 'web/dist/index.html');
const sources = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'web/build', 'web/package.json', 'contract/src'].map((p) =>
  path.join(root, p),
);

function newestChange(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(target).map((entry) => newestChange(path.join(target, entry))));
}

const builtAt = existsSync(builtIndex) ? statSync(builtIndex).mtimeMs : 0;
if (builtAt === 0 || Math.max(...sources.map(newestChange)) > builtAt) {
  console.log('Building the web app (web/dist)...');
  execSync('npm run build -w web', { cwd: root, stdio: 'inherit' });
}
