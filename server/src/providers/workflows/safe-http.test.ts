import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test-support/app.ts';
import { BlockedAddressError, checkProviderUrl, isPrivateAddress, safeRequest } from './safe-http.ts';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, metadata and IPv6 local addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it('lets public addresses through', () => {
    for (const address of [
      '8.8.8.8',
      '172.32.0.1',
      '104.18.2.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '64:ff9b::8.8.8.8',
      '2002:808:808::1',
      '2001:4860:4860::8888',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
    ])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('refuses special-use ranges and IPv6 forms that embed a private IPv4 address (issue 24)', () => {
    for (const address of [
      '192.0.2.2', // TEST-NET-1
      '198.51.100.7', // TEST-NET-2
      '203.0.113.9', // TEST-NET-3
      '198.18.0.1', // benchmarking
      '198.19.255.254',
      '192.88.99.1', // 6to4 relay anycast
      '224.0.0.1', // multicast
      '239.255.255.250',
      '240.0.0.1', // reserved
      '255.255.255.255',
      '::127.0.0.1', // IPv4-compatible
      '::7f00:1',
      '::8.8.8.8', // deprecated IPv4-compatible, whatever it embeds
      '::ffff:0:127.0.0.1', // IPv4-translated
      '::ffff:192.0.2.2',
      '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
      '64:ff9b::10.0.0.1',
      '64:ff9b::a9fe:a9fe', // NAT64 of the metadata address
      '64:ff9b:1::1', // local-use NAT64
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '2002:a9fe:a9fe::', // 6to4 of 169.254.169.254
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
      '2001:0:a00:1:8000:63bf:f7f7:f7f7', // Teredo, server 10.0.0.1
      '2001:db8::1', // documentation
      '3fff::1',
      '100::1', // discard
      'fec0::1', // site-local
      'ff02::1', // multicast
      'FE80::1%eth0',
      'not an address',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it("refuses every address of this machine's own interfaces", () => {
    const own = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
    expect(own.length).toBeGreaterThan(0);
    for (const address of own) expect(isPrivateAddress(address), address).toBe(true);
  });
});

describe('checkProviderUrl (save time)', () => {
  it('refuses every private form, including decimal, hex and short IPv4 and names resolving to loopback', async () => {
    for (const url of [
      'http://127.0.0.1/v1',
      'http://2130706433/v1',
      'http://0x7f000001/v1',
      'http://0x7f.1/v1',
      'http://127.1/v1',
      'http://017700000001/v1',
      'http://10.0.0.5/v1',
      'http://172.20.1.1/v1',
      'http://192.168.0.10/v1',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/v1',
      'http://[fc00::1]/v1',
      'http://[fe80::1]/v1',
      'http://[::ffff:127.0.0.1]/v1',
      'http://localhost:8080/v1',
      'http://192.0.2.2:8080/v1',
      'http://198.18.0.1/v1',
      'http://[::127.0.0.1]/v1',
      'http://[64:ff9b::7f00:1]/v1',
      'http://[2002:c0a8:101::1]/v1',
    ]) {
      await expect(checkProviderUrl(url, false), url).rejects.toBeInstanceOf(BlockedAddressError);
    }
  });

  it('accepts public URLs, and private ones when ALLOW_PRIVATE_PROVIDER_URLS is on', async () => {
    await expect(checkProviderUrl('https://8.8.8.8/v1', false)).resolves.toBeInstanceOf(URL);
    await expect(checkProviderUrl('http://127.0.0.1:5001/v1', true)).resolves.toBeInstanceOf(URL);
  });

  it('refuses what is not an http(s) URL, and URLs with credentials', async () => {
    for (const url of ['ftp://example.com', 'file:///etc/passwd', 'not a url', 'http://user:pass@example.com/v1']) {
      await expect(checkProviderUrl(url, false), url).rejects.toMatchObject({ code: 'invalid_param' });
    }
  });
});

describe('safeRequest (connect time)', () => {
  let server: ReturnType<typeof createServer>;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://127.0.0.1/elsewhere' });
        return res.end();
      }
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('checks the address a name resolves to when connecting (DNS rebinding): localhost never connects', async () => {
    const before = hits;
    await expect(
      safeRequest({ url: new URL(`http://localhost:${port}/`), method: 'GET', headers: {}, signal: new AbortController().signal, allowPrivate: false }),
    ).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(
      safeRequest({ url: new URL(`http://0x7f.1:${port}/`), method: 'GET', headers: {}, signal: new AbortController().signal, allowPrivate: false }),
    ).rejects.toBeInstanceOf(BlockedAddressError);
    expect(hits).toBe(before);
  });

  it("never connects to this machine's own interface address (the host's address is in no block list)", async () => {
    const wide = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => wide.listen(0, '0.0.0.0', resolve));
    const widePort = (wide.address() as AddressInfo).port;
    const before = hits;
    try {
      const addresses = Object.values(networkInterfaces())
        .flatMap((entries) => entries ?? [])
        .filter((entry) => entry.family === 'IPv4')
        .map((entry) => entry.address);
      for (const address of addresses) {
        await expect(
          safeRequest({
            url: new URL(`http://${address}:${widePort}/`),
            method: 'GET',
            headers: {},
            signal: new AbortController().signal,
            allowPrivate: false,
          }),
          address,
        ).rejects.toBeInstanceOf(BlockedAddressError);
      }
      expect(hits).toBe(before);
    } finally {
      await new Promise<void>((resolve) => wide.close(() => resolve()));
    }
  });

  it('never follows a redirect', async () => {
    const response = await safeRequest({
      url: new URL(`http://127.0.0.1:${port}/redirect`),
      method: 'GET',
      headers: {},
      signal: new AbortController().signal,
      allowPrivate: true,
    });
    expect(response.statusCode).toBe(302);
    response.resume();
  });
});

describe('through the API, without ALLOW_PRIVATE_PROVIDER_URLS', () => {
  let ctx: TestContext;
  let token: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    token = await ctx.tokenFor('ssrf-owner');
  });
  afterAll(() => ctx?.close());

  it('refuses a private base URL at create, at save and at test-config with a clear message and no 500', async () => {
    const create = await ctx.api('POST', '/api/app/', token, {
      name: 'SSRF',
      type: 'workflow',
      provider_config: { app_id: 'a', api_key: 'app-k', base_url: 'http://169.254.169.254/v1' },
    });
    expect(create.statusCode).toBe(400);
    expect(create.json().params).toBe('provider_config.base_url');
    const ok = await ctx.api('POST', '/api/app/', token, { name: 'Fine', type: 'workflow', provider_config: { app_id: 'a', api_key: 'app-k' } });
    expect(ok.statusCode).toBe(201);
    const slug = ok.json().slug;
    const save = await ctx.api('PATCH', `/api/app/${slug}/workflow/`, token, { provider_config: { base_url: 'http://2130706433:8080/v1' } });
    expect(save.statusCode).toBe(400);
    expect(save.json().message).toMatch(/private or loopback/);
    const test = await ctx.api('POST', `/api/app/${slug}/workflow/test-config/`, token, { provider_config: { base_url: 'http://[::1]:8080/v1' } });
    expect(test.statusCode).toBe(200);
    expect(test.json()).toMatchObject({ success: false, app_info: null });
    expect(test.json().error).toMatch(/private or loopback/);
  });
});
