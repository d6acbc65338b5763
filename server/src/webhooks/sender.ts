// One delivery attempt over HTTP, by the private-address rules of providers (providers/workflows/
// safe-http.ts: checked at save and again at connect time, on the address the name resolves to;
// never this server; redirects never followed), with a deadline over the whole exchange and at most
// 64 KiB of the answer read. Whatever the endpoint does (hangs, redirects, answers 10 MB, refuses),
// the attempt ends with a clear reason, and other deliveries run beside it untouched.
import { BlockedAddressError, SelfCallError, safeRequest } from '../providers/workflows/safe-http.ts';

export const MAX_RESPONSE_BYTES = 64 * 1024;
export const SNIPPET_CHARS = 500;

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  snippet: string;
  error: string | null;
}

export async function sendSigned(request: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}): Promise<AttemptResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(request.timeoutMs);
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ok: false, statusCode: null, latencyMs: 0, snippet: '', error: 'refused: the URL is not valid' };
  }
  try {
    const response = await safeRequest({ url, method: 'POST', headers: request.headers, body: request.body, signal, allowPrivate: request.allowPrivate });
    const status = response.statusCode ?? 0;
    const chunks: Buffer[] = [];
    let size = 0;
    let cut = false;
    for await (const chunk of response) {
      const buffer = chunk as Buffer;
      chunks.push(buffer.subarray(0, Math.max(0, MAX_RESPONSE_BYTES - size)));
      size += buffer.length;
      if (size >= MAX_RESPONSE_BYTES) {
        cut = true;
        response.destroy();
        break;
      }
    }
    const snippet = Buffer.concat(chunks).toString('utf8').slice(0, SNIPPET_CHARS);
    const ok = status >= 200 && status < 300;
    let error: string | null = null;
    if (status >= 300 && status < 400) error = `redirect not followed (${status} to ${String(response.headers.location ?? 'nowhere')})`;
    else if (!ok) error = `the endpoint answered ${status}`;
    if (cut) error = `${error ? `${error}; ` : ''}answer cut at ${MAX_RESPONSE_BYTES / 1024} KiB`;
    return { ok, statusCode: status, latencyMs: latency(), snippet, error };
  } catch (caught) {
    return { ok: false, statusCode: null, latencyMs: latency(), snippet: '', error: reasonOf(caught, signal, request.timeoutMs) };
  }
}

function reasonOf(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  const cause = (error as { cause?: unknown }).cause ?? error;
  if (cause instanceof BlockedAddressError || error instanceof BlockedAddressError) {
    const message = (cause as Error).message.replace('The provider URL points to', 'the URL points to');
    return `refused: ${message}`;
  }
  if (cause instanceof SelfCallError || error instanceof SelfCallError) return 'refused: the URL points to this Tollbooth server itself';
  if (signal.aborted) return `timeout: no complete answer within ${timeoutMs} ms`;
  const code = (error as NodeJS.ErrnoException).code;
  return `network error: ${code ? `${code} ` : ''}${(error as Error).message}`.trim();
}
