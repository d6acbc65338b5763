// The providers' HTTP client (pooled-fetch.ts) against a real local HTTP server: answers, streams
// read as they come (also by a slow reader), and every way a request ends early.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_ABORT } from './abort-hook.ts';
import { pooledFetch } from './pooled-fetch.ts';
import { postJson, startUpstreamCall } from './upstream.ts';

let server: Server;
let origin: string;
/** Resolves when the server sees the current request's connection or response closed before it was finished. */
let closedEarly: Promise<void> = Promise.resolve();
let handler: (request: IncomingMessage, response: ServerResponse, body: string) => void = () => {};

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => handler(request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const watchEarlyClose = (response: ServerResponse) => {
  closedEarly = new Promise((resolve) => response.on('close', () => (response.writableFinished ? undefined : resolve())));
};

describe('pooledFetch', () => {
  it('sends the method, headers and body, and answers the status and the whole text', async () => {
    handler = (request, response, body) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ method: request.method, url: request.url, auth: request.headers.authorization, body }));
    };
    const answer = await pooledFetch(`${origin}/v1/chat?x=1`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{"a":1}' });
    expect(answer.ok).toBe(true);
    expect(answer.status).toBe(200);
    expect(JSON.parse(await answer.text())).toEqual({ method: 'POST', url: '/v1/chat?x=1', auth: 'Bearer k', body: '{"a":1}' });
  });

  it('answers a failing status with its body, and a body of many chunks decoded across their boundaries', async () => {
    handler = (_request, response) => {
      response.writeHead(503);
      // "é" split between two chunks.
      const bytes = Buffer.from('overloaded é', 'utf8');
      response.write(bytes.subarray(0, bytes.length - 1));
      setTimeout(() => response.end(bytes.subarray(bytes.length - 1)), 20);
    };
    const answer = await pooledFetch(`${origin}/x`, { method: 'POST', body: '' });
    expect(answer.ok).toBe(false);
    expect(answer.status).toBe(503);
    expect(await answer.text()).toBe('overloaded é');
  });

  it('reads a body that arrived before text() was asked for', async () => {
    handler = (_request, response) => response.end('early');
    const answer = await pooledFetch(`${origin}/x`, { method: 'GET' });
    await sleep(50);
    expect(await answer.text()).toBe('early');
    await expect(answer.text()).rejects.toThrow(/already been read/);
  });

  it('streams a large body to a slow reader in order and in full', async () => {
    const chunks = 400;
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const more = () => {
        while (sent < chunks) {
          const ok = response.write(`${String(sent).padStart(6, '0')}${'x'.repeat(16 * 1024 - 6)}`);
          sent++;
          if (!ok) return void response.once('drain', more);
        }
        response.end();
      };
      more();
    };
    const answer = await pooledFetch(`${origin}/stream`, { method: 'POST', body: '' });
    const reader = answer.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (let reads = 0; ; reads++) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (reads < 20) await sleep(5);
    }
    expect(text.length).toBe(chunks * 16 * 1024);
    for (let i = 0; i < chunks; i += 97) expect(text.slice(i * 16 * 1024, i * 16 * 1024 + 6)).toBe(String(i).padStart(6, '0'));
  });

  // A fetch's signal, and an upstream call's own hook (upstream.ts), which never makes a signal.
  const aborters = {
    'a signal': () => {
      const controller = new AbortController();
      return { init: { signal: controller.signal }, abort: (reason: Error) => controller.abort(reason), done: () => {} };
    },
    "an upstream call's hook": () => {
      const caller = new AbortController();
      const call = startUpstreamCall('Test upstream', { signal: caller.signal, timeoutMs: 60_000 });
      return { init: { [UPSTREAM_ABORT]: call } as RequestInit, abort: (reason: Error) => caller.abort(reason), done: () => call.dispose() };
    },
  };

  describe.each(Object.entries(aborters))('aborted through %s', (_kind, aborter) => {
    it('rejects at once, without a request, when it is already aborted', async () => {
      let requests = 0;
      handler = (_request, response) => {
        requests++;
        response.end('no');
      };
      const { init, abort, done } = aborter();
      abort(new Error('gone'));
      await expect(pooledFetch(`${origin}/x`, { method: 'POST', body: '', ...init })).rejects.toThrow('gone');
      await sleep(50);
      expect(requests).toBe(0);
      done();
    });

    it('tears the request down when it aborts before the answer starts', async () => {
      handler = (_request, response) => watchEarlyClose(response);
      const { init, abort, done } = aborter();
      const answer = pooledFetch(`${origin}/slow`, { method: 'POST', body: '', ...init });
      await sleep(50);
      abort(new Error('caller left'));
      await expect(answer).rejects.toThrow('caller left');
      await closedEarly;
      done();
    });

    it('errors the stream and tears the request down when it aborts mid-stream', async () => {
      handler = (_request, response) => {
        watchEarlyClose(response);
        response.writeHead(200);
        response.write('data: first\n\n');
      };
      const { init, abort, done } = aborter();
      const answer = await pooledFetch(`${origin}/stream`, { method: 'POST', body: '', ...init });
      const reader = answer.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
      abort(new Error('caller left'));
      await expect(reader.read()).rejects.toThrow('caller left');
      await closedEarly;
      done();
    });
  });

  it("ends an upstream call's request at its deadline, with our client and with any other fetch (which reads its signal)", async () => {
    handler = (_request, response) => watchEarlyClose(response);
    for (const fetch of [pooledFetch, globalThis.fetch]) {
      const call = startUpstreamCall('Test upstream', { signal: new AbortController().signal, timeoutMs: 100 });
      const posted = postJson({ fetch, call, label: 'Test upstream', url: `${origin}/slow`, headers: {}, body: {}, secrets: [] });
      await expect(posted).rejects.toMatchObject({ code: 'provider_timeout' });
      await closedEarly;
      expect(call.signal.aborted).toBe(true);
      call.dispose();
    }
  });

  it('tears the request down when the reader cancels the body', async () => {
    handler = (_request, response) => {
      watchEarlyClose(response);
      response.writeHead(200);
      response.write('data: first\n\n');
    };
    const answer = await pooledFetch(`${origin}/stream`, { method: 'POST', body: '' });
    const reader = answer.body!.getReader();
    await reader.read();
    await reader.cancel();
    await closedEarly;
  });

  it('rejects text() when the connection breaks mid-body', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    const answer = await pooledFetch(`${origin}/x`, { method: 'POST', body: '' });
    await expect(answer.text()).rejects.toThrow();
  });

  it('rejects, rather than throws, for a URL it cannot call', async () => {
    const answer = pooledFetch('not a url', { method: 'POST', body: '' });
    await expect(answer).rejects.toThrow();
  });

  it('names an unreachable upstream in the error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(pooledFetch(`http://127.0.0.1:${port}/x`, { method: 'POST', body: '' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
