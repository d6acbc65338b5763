// Web benchmark (issue 15): Lighthouse's mobile performance score for the landing page and the
// dashboard, and the JavaScript each page loads first, on the real server (embedded PGlite and
// OpenID Connect provider, as `npm start` runs) and Debian's Chromium. A benchmark, not a test.
//
//   npm install --prefix bench/web
//   node --import tsx bench/web/run.ts [--runs 3] [--screenshots DIR] [--server-root DIR] [--reports DIR]
//
// Lighthouse runs with its defaults: mobile emulation (Moto G Power) and simulated throttling
// (150 ms RTT, 1.6 Mbps, 4x CPU slowdown). Each page is measured --runs times; the median is kept.
// --server-root measures another checkout (its web/dist must be built) for a before/after.
// --reports keeps every run's Lighthouse JSON (landing-1.json, dashboard-1.json, ...) to read what costs what.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import lighthouse from 'lighthouse';
import puppeteer, { type Page } from 'puppeteer-core';
import { initialJsFiles, kib, readManifest, servedBytes } from '../../web/build/initial-js.ts';
import { freePort } from '../free-port.ts';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    screenshots: { type: 'string' },
    'server-root': { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    reports: { type: 'string' },
  },
});
const runs = Number(options.runs);
const repositoryRoot = path.resolve(import.meta.dirname, '../..');
const serverRoot = path.resolve(options['server-root'] ?? repositoryRoot);
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

async function waitFor(url: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

function run(command: string, args: string[], cwd: string) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/** The real server with its defaults (embedded PGlite in a fresh DATA_DIR, embedded OIDC provider). */
async function startServer(port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-bench-web-'));
  const url = `http://localhost:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.OIDC_ISSUER;
  delete env.DATABASE_URL;
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: path.join(serverRoot, 'server'), env, stdio: 'inherit' });
  await waitFor(`${url}/api/health`, 180_000);
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs up a new account through the app's Register page and the embedded provider's form. */
async function signUp(page: Page, url: string) {
  const id = randomBytes(4).toString('hex');
  await page.goto(`${url}/register`, { waitUntil: 'networkidle0' });
  await page.locator('button ::-p-text(Create Account)').click();
  await page.waitForSelector('#display_name');
  await page.type('#email', `bench-${id}@example.com`);
  await page.type('#password', `lighthouse ${id} quiet harbour lantern`);
  await page.type('#display_name', `Bench ${id}`);
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  await page.waitForFunction(() => location.pathname === '/dashboard', { timeout: 60_000 });
  await page.locator('h1 ::-p-text(Applications)').wait();
}

interface Measurement {
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  si: number;
  scriptTransfer: number;
  scriptResource: number;
}

async function measure(port: number, url: string, signedIn: boolean, clearCache: () => Promise<void>, reportName: string): Promise<Measurement> {
  // Lighthouse empties the HTTP cache with the storage; when it keeps the storage (the session), empty the cache here.
  if (signedIn) await clearCache();
  const result = await lighthouse(url, {
    port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance'],
    // The dashboard needs the session oidc-client-ts keeps in localStorage.
    disableStorageReset: signedIn,
  });
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
  const { lhr } = result;
  if (options.reports) {
    mkdirSync(options.reports, { recursive: true });
    writeFileSync(path.join(options.reports, `${reportName}.json`), JSON.stringify(lhr));
  }
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
  const finalUrl = lhr.finalDisplayedUrl;
  if (new URL(finalUrl).pathname !== new URL(url).pathname) throw new Error(`Lighthouse measured ${finalUrl}, not ${url} (signed out?)`);
  const audit = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  const requests =
    (lhr.audits['network-requests']?.details as { items?: { resourceType?: string; transferSize?: number; resourceSize?: number }[] } | undefined)?.items ?? [];
  const scripts = requests.filter((request) => request.resourceType === 'Script');
  return {
    score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    fcp: audit('first-contentful-paint'),
    lcp: audit('largest-contentful-paint'),
    tbt: audit('total-blocking-time'),
    cls: audit('cumulative-layout-shift'),
    si: audit('speed-index'),
    scriptTransfer: scripts.reduce((sum, request) => sum + (request.transferSize ?? 0), 0),
    scriptResource: scripts.reduce((sum, request) => sum + (request.resourceSize ?? 0), 0),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Raw, gzip and brotli bytes of the JavaScript a page loads before it runs, from the Vite manifest. */
function initialBytes(distDir: string) {
  if (!existsSync(path.join(distDir, '.vite', 'manifest.json'))) return initialBytesFromHtml(distDir);
  const manifest = readManifest(distDir);
  const dashboardKey = Object.keys(manifest).find((key) => key.endsWith('app-overview-page.tsx'));
  const landing = new Set(initialJsFiles(manifest, 'index.html'));
  // The dashboard is a lazy route on the new build (its chunk and its static imports load after the
  // entry); on a build without splitting it is part of the entry.
  const dashboard = new Set([...landing, ...(dashboardKey ? initialJsFiles(manifest, dashboardKey) : [])]);
  return { landing: sumServed(distDir, landing), dashboard: sumServed(distDir, dashboard) };
}

function sumServed(distDir: string, files: Iterable<string>) {
  const total = { files: 0, raw: 0, gzip: 0, brotli: 0 };
  for (const file of files) {
    const bytes = servedBytes(path.join(distDir, file));
    total.files += 1;
    total.raw += bytes.raw;
    total.gzip += bytes.gzip;
    total.brotli += bytes.brotli;
  }
  return total;
}

/** A build without a manifest (before this benchmark existed): the scripts index.html names; no route is split. */
function initialBytesFromHtml(distDir: string) {
  const html = readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((match) => match[1] as string);
  const sizes = sumServed(distDir, files);
  return { landing: sizes, dashboard: sizes };
}

async function main() {
  if (!options['no-build'] && serverRoot === repositoryRoot) await run(process.execPath, ['scripts/ensure-web-build.mjs'], repositoryRoot);
  const distDir = path.join(serverRoot, 'web', 'dist');
  const bytes = initialBytes(distDir);

  const serverPort = await freePort();
  const server = await startServer(serverPort);
  const debuggingPort = await freePort();
  const profile = mkdtempSync(path.join(tmpdir(), 'tollbooth-bench-chromium-'));
  const chromium = spawn(chromiumPath, [...CHROMIUM_FLAGS, `--remote-debugging-port=${debuggingPort}`, `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: 'ignore',
  });
  try {
    await waitFor(`http://127.0.0.1:${debuggingPort}/json/version`, 30_000);
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${debuggingPort}`, defaultViewport: null });
    const landingRuns: Measurement[] = [];
    const dashboardRuns: Measurement[] = [];
    const page = await browser.newPage();
    const cdp = await page.createCDPSession();
    const clearCache = async () => void (await cdp.send('Network.clearBrowserCache'));
    for (let index = 0; index < runs; index++) landingRuns.push(await measure(debuggingPort, `${server.url}/`, false, clearCache, `landing-${index + 1}`));

    await signUp(page, server.url);
    if (options.screenshots) {
      mkdirSync(options.screenshots, { recursive: true });
      // Switching to a mobile viewport reloads the page: wait for the dashboard again, not its spinner.
      await page.setViewport({ width: 412, height: 823, deviceScaleFactor: 1, isMobile: true });
      await page.goto(`${server.url}/dashboard`, { waitUntil: 'networkidle0' });
      await page.locator('h1 ::-p-text(Applications)').wait();
      await page.screenshot({ path: path.join(options.screenshots, 'dashboard-mobile.png') });
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${server.url}/dashboard`, { waitUntil: 'networkidle0' });
      await page.screenshot({ path: path.join(options.screenshots, 'dashboard-desktop.png') });
      const anonymous = await browser.createBrowserContext();
      const landingPage = await anonymous.newPage();
      await landingPage.setViewport({ width: 412, height: 823, deviceScaleFactor: 1, isMobile: true });
      await landingPage.goto(`${server.url}/`, { waitUntil: 'networkidle0' });
      await landingPage.screenshot({ path: path.join(options.screenshots, 'landing-mobile.png') });
      await anonymous.close();
    }
    for (let index = 0; index < runs; index++)
      dashboardRuns.push(await measure(debuggingPort, `${server.url}/dashboard`, true, clearCache, `dashboard-${index + 1}`));
    await browser.disconnect();

    const summary = (name: string, measured: Measurement[]) => ({
      page: name,
      score: median(measured.map((m) => m.score)),
      scores: measured.map((m) => m.score).join(', '),
      fcp: median(measured.map((m) => m.fcp)),
      lcp: median(measured.map((m) => m.lcp)),
      tbt: median(measured.map((m) => m.tbt)),
      cls: median(measured.map((m) => m.cls)),
      si: median(measured.map((m) => m.si)),
      scriptTransfer: median(measured.map((m) => m.scriptTransfer)),
      scriptResource: median(measured.map((m) => m.scriptResource)),
    });
    const rows = [summary('landing (/)', landingRuns), summary('dashboard (/dashboard)', dashboardRuns)];
    const ms = (value: number) => `${Math.round(value)} ms`;

    console.log(
      `\nLighthouse ${(await import('lighthouse/package.json', { with: { type: 'json' } })).default.version} mobile (default emulation and simulated throttling), ${await browserVersion(debuggingPort)}, median of ${runs}`,
    );
    console.log('| page | performance | runs | FCP | LCP | TBT | CLS | Speed Index | JS transferred | JS decoded |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const row of rows) {
      console.log(
        `| ${row.page} | **${row.score}** | ${row.scores} | ${ms(row.fcp)} | ${ms(row.lcp)} | ${ms(row.tbt)} | ${row.cls.toFixed(3)} | ${ms(row.si)} | ${kib(row.scriptTransfer)} | ${kib(row.scriptResource)} |`,
      );
    }
    console.log('\nJavaScript loaded first (Vite manifest: entry + static imports; the dashboard adds its lazy chunk and its imports), as served:');
    console.log('| page | files | raw | gzip | brotli |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const [name, sizes] of [
      ['landing (/)', bytes.landing],
      ['dashboard (/dashboard)', bytes.dashboard],
    ] as const) {
      console.log(`| ${name} | ${sizes.files} | ${kib(sizes.raw)} | ${kib(sizes.gzip)} | ${kib(sizes.brotli)} |`);
    }
    // The embed widget's own two scripts (issue 28, web/build/embed-widget-plugin.ts): the whole JavaScript of /embed/{slug}, and the snippet's loader.
    for (const name of ['widget', 'loader']) {
      const file = path.join(distDir, 'embed', `${name}.js`);
      if (!existsSync(file)) continue;
      const sizes = servedBytes(file);
      console.log(`| embed ${name}.js | 1 | ${kib(sizes.raw)} | ${kib(sizes.gzip)} | ${kib(sizes.brotli)} |`);
    }
    console.log(
      `\nRe-run: node --import tsx bench/web/run.ts --runs ${runs}${options['server-root'] ? ` --server-root ${options['server-root']}` : ''} (after npm install --prefix bench/web)`,
    );
  } finally {
    chromium.kill('SIGTERM');
    await server.stop();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function browserVersion(port: number): Promise<string> {
  const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { Browser?: string };
  return version.Browser ?? 'Chromium';
}

await main();
