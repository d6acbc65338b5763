// Runs before `npm test` (the README's test command, and what .ci/run calls): checks what the
// test suites need before any of them runs, so a fresh machine fails at once with the fix, not
// late in the end-to-end suite.
// - Node.js: the version package.json's engines names.
// - Chromium for the end-to-end suite (CHROMIUM_PATH or /usr/bin/chromium): installed from Debian
//   with apt-get when running as root with apt available; otherwise stop with the exact command.
// - With DATABASE_URL (the PostgreSQL pass): HAProxy for the rolling restart
//   (server/src/deploy/rolling-restart.test.ts) and pg_dump/pg_restore for the backup test, from
//   Debian the same way.
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';

const fail = (message) => {
  console.error(`\nnpm test cannot run yet: ${message}\n`);
  process.exit(1);
};

const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const minimum = /^>=(\d+)\.(\d+)/.exec(engines);
const [major, minor] = process.versions.node.split('.').map(Number);
if (minimum && (major < Number(minimum[1]) || (major === Number(minimum[1]) && minor < Number(minimum[2])))) {
  fail(`Node.js ${engines} is required, this is ${process.version}. Install Node.js 20.19 or later (e.g. nvm install 20).`);
}

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const runs = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return spawnSync(file, ['--version'], { stdio: 'ignore', timeout: 60_000 }).status === 0;
  } catch {
    return false;
  }
};
const hasCommand = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;

if (!runs(chromium)) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (chromium === '/usr/bin/chromium' && isRoot && hasCommand('apt-get')) {
    console.log('== Chromium (for the end-to-end tests) is missing: installing Debian chromium with apt-get');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
    if (!runs(chromium)) fail('apt-get installed chromium, but /usr/bin/chromium does not run.');
  } else if (chromium === '/usr/bin/chromium') {
    fail(
      'the end-to-end tests need Chromium at /usr/bin/chromium. Install it with:\n\n    sudo apt-get install -y chromium\n\n(or set CHROMIUM_PATH to a Chromium binary).',
    );
  } else {
    fail(`CHROMIUM_PATH=${chromium} is not a runnable Chromium. Point it at one, or unset it and run: sudo apt-get install -y chromium`);
  }
}
console.log(`== ${execFileSync(chromium, ['--version'], { encoding: 'utf8' }).trim()}, Node.js ${process.version}`);

/** A Debian package's program for the PostgreSQL pass: installed as Chromium is when missing, else stop with the command. */
function ensureProgram(program, versionFlag, debianPackage, why) {
  if (runsQuietly(program, versionFlag)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !hasCommand('apt-get')) fail(`${why} needs ${program}. Install it with:\n\n    sudo apt-get install -y ${debianPackage}\n`);
  console.log(`== ${program} (${why}) is missing: installing Debian ${debianPackage} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', debianPackage], { stdio: 'inherit', env });
  if (!runsQuietly(program, versionFlag)) fail(`apt-get installed ${debianPackage}, but ${program} does not run.`);
}

function runsQuietly(program, versionFlag) {
  return spawnSync(program, [versionFlag], { stdio: 'ignore', timeout: 60_000 }).status === 0;
}

// Both passes: the metrics test scrapes a real server with Debian's Prometheus (issue 58).
ensureProgram('/usr/bin/prometheus', '--version', 'prometheus', 'the metrics test');

if (process.env.DATABASE_URL) {
  ensureProgram('/usr/sbin/haproxy', '-v', 'haproxy', 'the rolling-restart test');
  ensureProgram('pg_dump', '--version', 'postgresql-client', 'the backup test');
  ensureProgram('pg_restore', '--version', 'postgresql-client', 'the backup test');
}
