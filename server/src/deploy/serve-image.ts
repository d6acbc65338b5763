// Serves a paid call from the built image's file system (scripts/image/build-and-serve.sh, issue 57
// item 8). Containers cannot run on these machines (no cgroups), so the image's own command runs
// under chroot in its mounted file system, as its user, with its environment and working directory
// (read from the image), and DATA_DIR bound to a fresh folder: the same files, the same process.
// The model is the OpenAI-compatible fake and the identity provider the loopback test issuer, both
// on this machine. Prints the image's size and the paid call; exits 1 if anything fails.
// Usage (root): node --import tsx src/deploy/serve-image.ts <mounted image root> <image> <base image>
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';
import { startTestIssuer } from '../test-support/oidc-issuer.ts';
import { sendJson } from '../test-support/server-process.ts';

const [root, image, base] = process.argv.slice(2);
if (!root || !image || !base) {
  console.error('usage: serve-image.ts <mounted image root> <image> <base image>');
  process.exit(2);
}

const inspect = (ref: string, format: string) => execFileSync('podman', ['image', 'inspect', '--format', format, ref], { encoding: 'utf8' }).trim();
const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(0)} MB`;
const imageBytes = Number(inspect(image, '{{.Size}}'));
const baseBytes = Number(inspect(base, '{{.Size}}'));
const env = JSON.parse(inspect(image, '{{json .Config.Env}}')) as string[];
const cmd = JSON.parse(inspect(image, '{{json .Config.Cmd}}')) as string[];
const workdir = inspect(image, '{{.Config.WorkingDir}}') || '/';
const user = inspect(image, '{{.Config.User}}');
const uid = Number(execFileSync('chroot', [root, 'id', '-u', user], { encoding: 'utf8' }).trim());
const gid = Number(execFileSync('chroot', [root, 'id', '-g', user], { encoding: 'utf8' }).trim());
console.log(`image ${image}: ${mb(imageBytes)} (${mb(imageBytes - baseBytes)} over its base ${base}, ${mb(baseBytes)})`);
console.log(`its command: ${cmd.join(' ')} in ${workdir} as ${user} (${uid}:${gid})`);

const mounts: string[] = [];
const bind = (args: string[], target: string) => {
  execFileSync('mount', [...args, target]);
  mounts.unshift(target);
};
const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-image-data-'));
chownSync(dataDir, uid, gid);
const [upstream, issuer] = await Promise.all([startOpenAIFake({ apiKey: 'sk-image' }), startTestIssuer()]);
let failed = false;
try {
  bind(['-t', 'proc', 'proc'], path.join(root, 'proc'));
  bind(['--rbind', '/dev'], path.join(root, 'dev'));
  bind(['--bind', dataDir], path.join(root, 'data'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const settings = [
    ...env,
    `PORT=${port}`,
    'HOST=127.0.0.1',
    `PUBLIC_URL=${base}`,
    `SECRET_KEY=${randomBytes(32).toString('hex')}`,
    `OIDC_ISSUER=${issuer.issuer}`,
    'OIDC_CLIENT_ID=image-test',
    `OIDC_AUDIENCE=${issuer.audience}`,
    `OPENAI_BASE_URL=${upstream.baseUrl}`,
    'OPENAI_API_KEY=sk-image',
    'SHUTDOWN_GRACE_SECONDS=1',
    'LOG_LEVEL=warn',
  ];
  const quoted = cmd.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const started = performance.now();
  const server = spawn('chroot', [`--userspec=${uid}:${gid}`, root, '/usr/bin/env', '-i', ...settings, '/bin/sh', '-c', `cd ${workdir} && exec ${quoted}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  for (let ready = false; !ready; ) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}) before it was ready`);
    if (performance.now() - started > 120_000) throw new Error('the server was not ready within 120 s');
    ready = await fetch(`${base}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.log(`ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(await (await fetch(`${base}/readyz`)).json())}`);

  const owner = await issuer.sign({ sub: 'image-owner', email: 'owner@example.com', email_verified: true });
  const caller = await issuer.sign({ sub: 'image-caller', email: 'caller@example.com', email_verified: true });
  const app = await sendJson(base, 'POST', '/api/app/', owner, { name: 'From the image', type: 'prompt', visibility: 'public', price_cents: 7 });
  if (app.status !== 201) throw new Error(`creating the app answered ${app.status} ${JSON.stringify(app.body)}`);
  const live = await sendJson(base, 'PATCH', `/api/app/${app.body.slug}/update_status/`, owner, { status: 'live' });
  if (live.status !== 200) throw new Error(`going live answered ${live.status} ${JSON.stringify(live.body)}`);
  const key = (await sendJson(base, 'POST', '/api/keys/', caller, { name: 'image' })).body.key as string;
  const before = (await sendJson(base, 'GET', '/api/billing/balance/', caller)).body.credits_cents as number;
  const call = await sendJson(base, 'POST', `/api/app/${app.body.slug}/completion-messages`, key, {
    inputs: { query: 'Hello from the image' },
    response_mode: 'blocking',
    user: 'image-test',
  });
  if (call.status !== 200) throw new Error(`the paid call answered ${call.status} ${JSON.stringify(call.body)}`);
  const after = (await sendJson(base, 'GET', '/api/billing/balance/', caller)).body.credits_cents as number;
  console.log(
    `paid call: 200 "${String(call.body.answer).slice(0, 80)}"; price ${call.body.metadata?.usage?.total_price ?? '?'}; the caller's credits ${before} -> ${after} cents`,
  );
  if (before - after !== 7 || upstream.requests.length !== 1)
    throw new Error(`expected a 7-cent charge and one upstream call, got ${before - after} cents and ${upstream.requests.length} calls`);

  server.kill('SIGTERM');
  const code = await exited;
  console.log(`SIGTERM: exited ${code}`);
  if (code !== 0) throw new Error(`the server exited ${code} on SIGTERM`);
  console.log(`DATA_DIR after the run: ${readdirSync(dataDir).sort().join(', ')}`);
  if (existsSync(path.join(dataDir, 'pglite.lock'))) throw new Error('the embedded database lock was left behind');
  console.log('image serve: passed');
} catch (error) {
  failed = true;
  console.error(`image serve: FAILED: ${(error as Error).message}`);
} finally {
  for (const target of mounts) {
    try {
      execFileSync('umount', ['-l', target]);
    } catch {}
  }
  await Promise.all([upstream.close(), issuer.close()]);
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
