// The app's own tiny server. It holds TOLLBOOTH_API_KEY and forwards the browser's calls to
// Tollbooth, passing streamed answers through as they arrive, so the key never reaches a browser.
// It also serves the app: built files from dist/ (`npm start`), or Vite in development (`npm run dev`).
// Whoever can make this server call spends the key's money, so it answers only its own pages
// (their Host and Origin), at most RATE_LIMIT_PER_MINUTE calls per client and SPEND_CAP_CENTS a day.
// Only Node's own modules are used.
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';

const root = import.meta.dirname;
const dev = process.argv.includes('--dev');

// Settings: the environment first, then .env, then .env.example (loadEnvFile never overrides).
for (const file of ['.env', '.env.example']) {
  if (existsSync(path.join(root, file))) process.loadEnvFile(path.join(root, file));
}
const tollboothUrl = (process.env.TOLLBOOTH_URL ?? '').replace(/\/+$/, '');
const appSlug = process.env.TOLLBOOTH_APP ?? '';
const apiKey = (process.env.TOLLBOOTH_API_KEY ?? '').trim();
const port = Number(process.env.PORT || 5173);
const host = process.env.HOST || '127.0.0.1';

/** Whole numbers from the settings, with their defaults. */
const whole = (name, fallback) => {
  const value = Number(process.env[name] || fallback);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
};
const ratePerMinute = whole('RATE_LIMIT_PER_MINUTE', 20);
const spendCapCents = whole('SPEND_CAP_CENTS', 500);
/** The app's price as it was when the app was downloaded (src/app-description.json). */
const { priceCents, priceVaries } = (() => {
  try {
    const description = JSON.parse(readFileSync(path.join(root, 'src', 'app-description.json'), 'utf8'));
    return { priceCents: Number(description.priceCents) || 0, priceVaries: description.priceVaries === true };
  } catch {
    return { priceCents: 0, priceVaries: false };
  }
})();
const spendCapMicros = spendCapCents * 10_000;
/** What a call is counted at until its answer says what it cost: the least a call costs (a cent is 10,000 micro-dollars). */
const reservedMicros = priceCents * 10_000;

/** "0.0051200" (decimal dollars, an answer's usage.total_price) as micro-dollars, rounded half up. */
function microsOf(dollars) {
  const [whole = '0', fraction = ''] = dollars.split('.');
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(7, '0').slice(0, 6)) + (Number(fraction[6] ?? 0) >= 5 ? 1 : 0);
}
/**
 * The Host names this server answers to (DNS rebinding: another site's name pointed at this
 * address must not reach it): localhost and the listening address, plus ALLOWED_HOSTS.
 */
const allowedHosts = new Set(
  ['localhost', '127.0.0.1', '[::1]', host, ...(process.env.ALLOWED_HOSTS ?? '').split(',')].map((name) => name.trim().toLowerCase()).filter(Boolean),
);
/** Whether a Host header names this server (its port aside: a rebinding attacker's name is what differs). */
const isOwnHost = (value) =>
  allowedHosts.has(
    String(value ?? '')
      .toLowerCase()
      .replace(/:\d+$/, ''),
  );

const problems = [];
if (!apiKey) problems.push('TOLLBOOTH_API_KEY is not set. Create an API key on your Tollbooth profile page and put it in .env (see .env.example).');
if (!/^https?:\/\/.+/.test(tollboothUrl)) problems.push('TOLLBOOTH_URL must be the http(s) address of your Tollbooth.');
if (!appSlug) problems.push('TOLLBOOTH_APP must be the slug of the app to call.');
if (problems.length > 0) {
  console.error(`Not starting:\n  - ${problems.join('\n  - ')}`);
  process.exit(1);
}

const MAX_BODY_BYTES = 1024 * 1024;
const CALLS = new Set(['/api/completion-messages', '/api/chat-messages']);
/** Upstream headers the browser needs: the answer's type and the rate-limit hints used in error messages. */
const PASSED_HEADERS = ['content-type', 'cache-control', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Calls per client address in the current minute. */
const callsByClient = new Map();
let minute = 0;
/**
 * What today's calls may have cost, in micro-dollars: each counted at the least a call costs until
 * its answer says what it cost (usage.total_price: a per-token call costs what it used), or given
 * back when it fails.
 */
let spent = { day: '', micros: 0 };

/**
 * Only the app's own pages may call: the Origin of a browser's request must be this server's own
 * (a cross-site form or text/plain post has another, or none), and the body must be JSON.
 */
function refusal(req) {
  const origin = (req.headers.origin ?? '').replace(/^https?:\/\//, '').toLowerCase();
  if (!origin || origin !== String(req.headers.host).toLowerCase()) {
    return { status: 403, code: 'forbidden_origin', message: 'Calls are accepted from this app’s own pages only.' };
  }
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return { status: 415, code: 'unsupported_media_type', message: 'Send the call as application/json.' };
  }
  const now = Math.floor(Date.now() / 60_000);
  if (now !== minute) {
    minute = now;
    callsByClient.clear();
  }
  const client = req.socket.remoteAddress ?? '';
  const count = (callsByClient.get(client) ?? 0) + 1;
  callsByClient.set(client, count);
  if (count > ratePerMinute) {
    return {
      status: 429,
      code: 'rate_limited',
      message: 'Too many calls from your address; try again in a minute.',
      retryAfter: 60 - (Math.floor(Date.now() / 1000) % 60),
    };
  }
  const day = new Date().toISOString().slice(0, 10);
  if (spent.day !== day) spent = { day, micros: 0 };
  if (spent.micros + reservedMicros > spendCapMicros || (spent.micros > 0 && spent.micros >= spendCapMicros)) {
    return { status: 402, code: 'spend_cap_reached', message: 'This app reached its spending limit for today; try again tomorrow.' };
  }
  return null;
}

/** POST /api/{completion|chat}-messages → Tollbooth's endpoint of this app, with the key added. */
async function forwardCall(req, res, pathname) {
  const refused = refusal(req);
  if (refused) {
    req.resume();
    if (refused.retryAfter) res.setHeader('retry-after', refused.retryAfter);
    return sendJson(res, refused.status, { code: refused.code, message: refused.message, status: refused.status });
  }
  // Counted now, so calls in flight together cannot pass the cap; given back when the call fails.
  // An app whose calls cost what they use (per token, cost-plus) asks Tollbooth to refuse, before the
  // model is asked, a call that may cost more than what today's cap has left.
  const left = spendCapMicros - spent.micros;
  spent.micros += reservedMicros;
  const day = spent.day;
  let charged = false;
  let costMicros = null;
  res.on('close', () => {
    if (!charged && spent.day === day) spent.micros -= reservedMicros;
  });
  const body = await readBody(req);
  if (body === null) return sendJson(res, 413, { code: 'payload_too_large', message: 'The request is too large.', status: 413 });
  // Abort the upstream call when the browser goes away: an answer nobody reads is not charged.
  const upstreamAbort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) upstreamAbort.abort();
  });
  let upstream;
  try {
    upstream = await fetch(`${tollboothUrl}/api/app/${encodeURIComponent(appSlug)}/${pathname.slice('/api/'.length)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(priceVaries ? { 'x-max-price': (left / 1_000_000).toFixed(6) } : {}),
      },
      body,
      signal: upstreamAbort.signal,
    });
  } catch (error) {
    if (upstreamAbort.signal.aborted) return;
    console.error(`Could not reach Tollbooth at ${tollboothUrl}:`, error.cause?.message ?? error.message);
    return sendJson(res, 502, { code: 'tollbooth_unreachable', message: `Could not reach Tollbooth at ${tollboothUrl}.`, status: 502 });
  }
  const headers = { 'x-accel-buffering': 'no' };
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  // A 2xx answer may be charged (a stream once any of it was sent): it stays counted.
  charged = upstream.status >= 200 && upstream.status < 300;
  res.writeHead(upstream.status, headers);
  res.flushHeaders();
  if (!upstream.body) return res.end();
  // The answer passes through as it arrives; its usage.total_price (the blocking JSON's, or the
  // stream's message_end) says what the call cost.
  // Counted once the answer has arrived, before its last bytes go out to the browser.
  const decoder = new TextDecoder();
  let tail = '';
  const readCost = new Transform({
    transform(chunk, _encoding, done) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4096);
      for (const match of tail.matchAll(/"total_price"\s*:\s*"(\d+(?:\.\d+)?)"/g)) costMicros = microsOf(match[1]);
      done(null, chunk);
    },
    flush(done) {
      if (charged && costMicros !== null && spent.day === day) spent.micros += costMicros - reservedMicros;
      done();
    },
  });
  Readable.fromWeb(upstream.body)
    .on('error', () => res.destroy())
    .pipe(readCost)
    .pipe(res);
}

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Built files from dist/; any other path gets index.html (the app has one page). */
async function serveBuilt(req, res, pathname) {
  const dist = path.join(root, 'dist');
  let file = path.join(dist, path.normalize(decodeURIComponent(pathname)));
  if (!file.startsWith(dist + path.sep)) file = path.join(dist, 'index.html');
  const isFile = await stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
  if (!isFile) file = path.join(dist, 'index.html');
  try {
    const content = await readFile(file);
    const immutable = file.includes(`${path.sep}assets${path.sep}`);
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : content);
  } catch {
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('The app is not built yet: run `npm run build`, then `npm start` (or use `npm run dev`).');
  }
}

let vite = null;
const server = createServer((req, res) => {
  // Only this server's own names: a forged Host (DNS rebinding) gets nothing, pages included.
  if (!isOwnHost(req.headers.host)) {
    return sendJson(res, 421, { code: 'unknown_host', message: 'This server does not answer to that host name.', status: 421 });
  }
  const { pathname } = new URL(req.url ?? '/', 'http://localhost');
  if (pathname.startsWith('/api/')) {
    if (req.method === 'POST' && CALLS.has(pathname)) {
      forwardCall(req, res, pathname).catch((error) => {
        console.error(error);
        if (!res.headersSent) sendJson(res, 500, { code: 'internal_error', message: 'The local server failed.', status: 500 });
        else res.destroy();
      });
      return;
    }
    return sendJson(res, 404, { code: 'not_found', message: 'Not found.', status: 404 });
  }
  if (vite) return vite.middlewares(req, res);
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { code: 'method_not_allowed', message: 'Method not allowed.', status: 405 });
  serveBuilt(req, res, pathname).catch((error) => {
    console.error(error);
    res.destroy();
  });
});

if (dev) {
  const { createServer: createViteServer } = await import('vite');
  vite = await createViteServer({ root, appType: 'spa', server: { middlewareMode: true, hmr: { server } } });
}

server.listen(port, host, () => {
  const address = server.address();
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  console.log(`${dev ? 'Development' : 'App'} server on http://${shownHost}:${address.port}, calling ${tollboothUrl} (app ${appSlug})`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close();
    void vite?.close();
    process.exit(0);
  });
}
