// HTTP to creator-supplied provider URLs without letting a creator reach our own network (SSRF).
// A URL is checked when it is saved (checkProviderUrl) and again on every connection, on the
// address the name resolved to at that moment (a name that resolved to a public address at save
// time and to 127.0.0.1 now — DNS rebinding — is refused). Redirects are never followed.
// ALLOW_PRIVATE_PROVIDER_URLS turns the address rule off (self-hosted Dify on the LAN, tests).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { AppError } from '../../platform/errors.ts';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo 2001::/32 is judged below, before this)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (with or without a trailing dotted IPv4), or null. */
function ipv6Bytes(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const tail: number[] = [];
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    tail.push(...dotted.slice(1, 5).map(Number));
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const all = [...head, ...Array(Math.max(0, fill)).fill('0'), ...rest];
  if (all.length !== 8 || all.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return null;
  const bytes = all.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 255];
  });
  if (dotted) bytes.splice(12, 4, ...tail);
  return bytes;
}

const v4 = (bytes: number[], at: number, xor = 0) =>
  bytes
    .slice(at, at + 4)
    .map((byte) => byte ^ xor)
    .join('.');

/**
 * The addresses of this machine's own interfaces (the host's public address included: a provider
 * URL pointing there reaches services listening on the host). Read again every few seconds.
 */
let ownAddresses = { readAt: 0, list: new BlockList() };
function ownInterfaceAddresses(): BlockList {
  if (Date.now() - ownAddresses.readAt < 5000) return ownAddresses.list;
  const list = new BlockList();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      const address = entry.address.replace(/%.*$/, '');
      if (isIP(address)) list.addAddress(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
    }
  }
  ownAddresses = { readAt: Date.now(), list };
  return list;
}

function isOwnAddress(address: string): boolean {
  const list = ownInterfaceAddresses();
  return isIP(address) === 6 ? list.check(address, 'ipv6') : list.check(address, 'ipv4');
}

function isPrivateIpv4(address: string): boolean {
  return blocked.check(address, 'ipv4') || isOwnAddress(address);
}

/**
 * True for every address a provider URL must not reach: loopback, private, link-local (cloud
 * metadata), shared, special-use (TEST-NET, benchmarking, documentation, reserved), multicast,
 * unspecified, this machine's own interface addresses, and IPv6 forms that carry one of those as
 * an embedded IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64
 * 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32). Anything that is not an IP address is refused.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return isPrivateIpv4(address);
  if (family !== 6) return true;
  const bytes = ipv6Bytes(address);
  if (!bytes) return true;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated) are the IPv4 address itself.
  if (zeros(0, 10) && bytes[10] === 255 && bytes[11] === 255) return isPrivateIpv4(v4(bytes, 12));
  if (zeros(0, 8) && bytes[8] === 255 && bytes[9] === 255 && zeros(10, 12)) return isPrivateIpv4(v4(bytes, 12));
  // NAT64 (well-known prefix): the last 32 bits are the IPv4 destination.
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return isPrivateIpv4(v4(bytes, 12));
  // 6to4: bits 16-47 are the IPv4 address of the site's relay.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return isPrivateIpv4(v4(bytes, 2));
  // Teredo: bits 32-63 are the server's IPv4 address, the last 32 the client's, inverted.
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) {
    return isPrivateIpv4(v4(bytes, 4)) || isPrivateIpv4(v4(bytes, 12, 255));
  }
  return blocked.check(address.replace(/%.*$/, ''), 'ipv6') || isOwnAddress(address);
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
const portOf = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

// --- This server itself (issue 24: a workflow app pointed at Tollbooth's own API called itself) --

/** host:port of this server's PUBLIC_URL (with how many servers of this process have it), and the ports its processes listen on. */
const ownOrigins = new Map<string, number>();
const ownPorts = new Set<number>();

const originOf = (publicUrl: string) => {
  try {
    const url = new URL(publicUrl);
    return `${hostOf(url).toLowerCase()}:${portOf(url)}`;
  } catch {
    return null; // An invalid PUBLIC_URL is refused by the config; nothing to register.
  }
};

/** Tells the guard where this server is: its PUBLIC_URL (at build) and each port it listens on. */
export function registerOwnServer(where: { publicUrl?: string; port?: number }) {
  const origin = where.publicUrl ? originOf(where.publicUrl) : null;
  if (origin) ownOrigins.set(origin, (ownOrigins.get(origin) ?? 0) + 1);
  if (where.port) ownPorts.add(where.port);
}

/** A server that closed: its port may be someone else's next, and so may its PUBLIC_URL's once no other server here has it. */
export function forgetOwnServer(where: { publicUrl?: string; port?: number }) {
  const origin = where.publicUrl ? originOf(where.publicUrl) : null;
  const count = origin ? (ownOrigins.get(origin) ?? 0) : 0;
  if (origin && count > 1) ownOrigins.set(origin, count - 1);
  else if (origin) ownOrigins.delete(origin);
  if (where.port) ownPorts.delete(where.port);
}

const LOCAL = new BlockList();
LOCAL.addSubnet('127.0.0.0', 8, 'ipv4');
LOCAL.addAddress('0.0.0.0', 'ipv4');
LOCAL.addAddress('::1', 'ipv6');
LOCAL.addAddress('::', 'ipv6');

/** Whether an address is this machine (loopback, unspecified or one of its interfaces). */
function isThisMachine(address: string): boolean {
  const bare = address.replace(/%.*$/, '').replace(/^::ffff:(?=\d+\.)/i, '');
  const family = isIP(bare);
  if (!family) return false;
  return LOCAL.check(bare, family === 6 ? 'ipv6' : 'ipv4') || isOwnAddress(bare);
}

/** Whether host:port (and the address the host resolved to) is this Tollbooth server. */
function isThisServer(host: string, port: number, address?: string): boolean {
  if (ownOrigins.has(`${host.toLowerCase()}:${port}`)) return true;
  if (!ownPorts.has(port)) return false;
  return isThisMachine(address ?? host);
}

export class SelfCallError extends AppError {
  constructor(host: string) {
    super(
      'invalid_param',
      `The provider URL points to this Tollbooth server itself (${host}); an app cannot call Tollbooth's own API as its provider`,
      'provider_config.base_url',
      undefined,
      'provider_url_self',
    );
  }
}

/** Save-time check: the URL is well formed, not this server, and (unless allowed) every address its host resolves to is public. */
export async function checkProviderUrl(value: string, allowPrivate: boolean, field = 'provider_config.base_url'): Promise<URL> {
  const url = parseProviderUrl(value, field);
  const host = hostOf(url);
  const port = portOf(url);
  if (isThisServer(host, port)) throw new SelfCallError(host);
  if (isIP(host)) {
    if (!allowPrivate && isPrivateAddress(host)) throw new BlockedAddressError(host);
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
  if (addresses.some((entry) => isThisServer(host, port, entry.address))) throw new SelfCallError(host);
  if (allowPrivate) return url;
  const bad = addresses.find((entry) => isPrivateAddress(entry.address));
  if (bad) throw new BlockedAddressError(host, bad.address);
  return url;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A dns.lookup for http.request that refuses this server and (unless allowed) private addresses,
 * on the addresses the connection will use, so the check holds at connect time (no DNS rebinding window).
 */
function guardedLookupFor(port: number, allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.some((entry) => isThisServer(hostname, port, entry.address))) {
        return callback(new SelfCallError(hostname) as unknown as NodeJS.ErrnoException, []);
      }
      const bad = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
      if (bad) return callback(new BlockedAddressError(hostname, bad.address) as unknown as NodeJS.ErrnoException, []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * The same check for pooled fetches to creators' own model providers (bring your own key): refuses
 * private addresses at connect time (the port is not known here, so this server is caught by its addresses).
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) {
  guardedLookupFor(-1, false)(hostname, options, callback);
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
 * redirect: a 3xx is answered as it is). Rejects with SelfCallError before connecting to this
 * server, BlockedAddressError before connecting to a private address, or with the network error.
 */
export function safeRequest(request: SafeRequest): Promise<IncomingMessage> {
  const host = hostOf(request.url);
  if (isThisServer(host, portOf(request.url))) return Promise.reject(new SelfCallError(host));
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
        lookup: guardedLookupFor(portOf(request.url), request.allowPrivate) as never,
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
