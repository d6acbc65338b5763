// HTTP to creator-supplied provider URLs without letting a creator reach our own network (SSRF).
// A URL is checked when it is saved (checkProviderUrl) and again on every connection, on the
// address the name resolved to at that moment (a name that resolved to a public address at save
// time and to 127.0.0.1 now — DNS rebinding — is refused). Redirects are never followed.
// ALLOW_PRIVATE_PROVIDER_URLS turns the address rule off (self-hosted Dify on the LAN, tests).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../../errors.ts';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True for loopback, private, link-local (cloud metadata), shared, multicast and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const lower = address.toLowerCase();
    // IPv4-mapped and IPv4-compatible forms (::ffff:127.0.0.1, ::ffff:7f00:1) carry an IPv4 address.
    const mapped = /^(?:0{0,4}:){0,5}(?:ffff:)?((?:\d{1,3}\.){3}\d{1,3})$/.exec(lower.replace(/^::/, '0:'));
    if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
    const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
    if (hexMapped) {
      const high = Number.parseInt(hexMapped[1]!, 16);
      const low = Number.parseInt(hexMapped[2]!, 16);
      return blocked.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
    }
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export class BlockedAddressError extends AppError {
  constructor(host: string, address?: string) {
    super(
      'invalid_param',
      `The provider URL points to a private or loopback address (${address && address !== host ? `${host} → ${address}` : host}), which is not allowed`,
      'provider_config.base_url',
      undefined,
      'provider_url_blocked',
    );
  }
}

/** Parses and normalizes a provider URL (the WHATWG parser turns 2130706433, 0x7f.1 and 127.1 into 127.0.0.1). */
export function parseProviderUrl(value: string, field = 'provider_config.base_url'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('invalid_param', `${field}: must be an http(s) URL`, field);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppError('invalid_param', `${field}: must be an http(s) URL`, field);
  if (url.username || url.password) throw new AppError('invalid_param', `${field}: must not contain credentials`, field);
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Save-time check: the URL is well formed and (unless allowed) every address its host resolves to is public. */
export async function checkProviderUrl(value: string, allowPrivate: boolean, field = 'provider_config.base_url'): Promise<URL> {
  const url = parseProviderUrl(value, field);
  if (allowPrivate) return url;
  const host = hostOf(url);
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw new BlockedAddressError(host);
    return url;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      dnsLookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
    );
  } catch {
    // An unknown name is not an SSRF risk; the connection test reports it as unreachable.
    return url;
  }
  const bad = addresses.find((entry) => isPrivateAddress(entry.address));
  if (bad) throw new BlockedAddressError(host, bad.address);
  return url;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for http.request that refuses private addresses, so the check holds at connect time. */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((entry) => isPrivateAddress(entry.address));
    if (bad) return callback(new BlockedAddressError(hostname, bad.address) as unknown as NodeJS.ErrnoException, []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

export interface SafeRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer | string;
  signal: AbortSignal;
  allowPrivate: boolean;
}

/**
 * One HTTP exchange; resolves with the response head and its body stream (never follows a
 * redirect: a 3xx is answered as it is). Rejects with BlockedAddressError before connecting to
 * a private address, or with the network error.
 */
export function safeRequest(request: SafeRequest): Promise<IncomingMessage> {
  const host = hostOf(request.url);
  if (!request.allowPrivate && isIP(host) && isPrivateAddress(host)) return Promise.reject(new BlockedAddressError(host));
  return send(request).catch((error: unknown) => {
    // A kept-alive connection the provider closed just as we reused it fails before the request
    // reached it (Node's documented keep-alive race): send it once more on a fresh connection.
    if ((error as { reusedSocket?: boolean }).reusedSocket && !request.signal.aborted) return send(request);
    throw error;
  });
}

function send(request: SafeRequest): Promise<IncomingMessage> {
  const transport = request.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(
      request.url,
      {
        method: request.method,
        headers: { ...request.headers, ...(request.body !== undefined ? { 'content-length': Buffer.byteLength(request.body) } : {}) },
        signal: request.signal,
        ...(request.allowPrivate ? {} : { lookup: guardedLookup as never }),
      },
      resolve,
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code;
      reject(outgoing.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE') ? Object.assign(error, { reusedSocket: true }) : error);
    });
    if (request.body !== undefined) outgoing.write(request.body);
    outgoing.end();
  });
}

/** Reads a whole (bounded) response body as text. */
export async function readText(response: IncomingMessage, maxBytes = 20 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      response.destroy();
      throw new AppError('provider_error', 'The provider answer is too large');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
