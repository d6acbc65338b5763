// The one client for the Tollbooth API: base path /api/, a bearer token when signed in, and every
// failure turned into an ApiError by apiFetch, which every call goes through (JSON via apiRequest,
// downloads, CSV exports, streams). The auth feature registers how to get the token.
import { ApiError } from './errors';

export const API_BASE_PATH = '/api';

export const NO_ACCESS_TOKEN_MESSAGE = 'No access token available';

type AccessTokenGetter = () => Promise<string | null>;

let getAccessToken: AccessTokenGetter = async () => null;

/** Called by the auth provider; returns a function that restores the previous getter. */
export function setAccessTokenGetter(getter: AccessTokenGetter): () => void {
  const previous = getAccessToken;
  getAccessToken = getter;
  return () => {
    getAccessToken = previous;
  };
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Serialised as JSON. */
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * `optional` (default) sends the token when signed in; `required` fails with "No access token available"
   * when there is none; `none` never sends it.
   */
  auth?: 'optional' | 'required' | 'none';
}

export function buildApiUrl(path: string, query?: RequestOptions['query']): string {
  const url = `${API_BASE_PATH}/${path.replace(/^\/+/, '')}`;
  if (!query) return url;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `${url}?${text}` : url;
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** A failed answer's body: the error JSON when it is JSON, else its text, undefined when empty. */
async function readErrorBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface FetchOptions extends Omit<RequestOptions, 'body'> {
  /** Sent as is (already serialised). */
  body?: BodyInit;
  /** A bearer token chosen by the caller (an API key, or a token read beforehand); overrides `auth`. */
  bearer?: string | null;
}

/**
 * The one fetch of the API: every call (JSON, file download, CSV, stream) goes through it. It builds
 * the URL, adds the bearer token, and turns a failed answer into an ApiError (logging a 401); the
 * caller reads the successful Response as JSON, a Blob, text or a stream.
 */
export async function apiFetch(path: string, options: FetchOptions = {}): Promise<Response> {
  const { method = 'GET', body, query, signal, auth = 'optional', bearer } = options;
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };

  if (bearer !== undefined) {
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
  } else if (auth !== 'none') {
    const token = await getAccessToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    else if (auth === 'required') throw new Error(NO_ACCESS_TOKEN_MESSAGE);
  }

  const url = buildApiUrl(path, query);
  const response = await fetch(url, { method, headers, body, signal });
  if (!response.ok) {
    const data = await readErrorBody(response);
    if (response.status === 401) console.warn(`Unauthorized: ${method} ${url}`, data);
    throw new ApiError(response.status, data, `Request failed with status ${response.status}`);
  }
  return response;
}

/** A JSON call: the body is sent as JSON and the answer read as JSON (or text). */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { body, ...rest } = options;
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await apiFetch(path, { ...rest, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await readBody(response)) as T;
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) => apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) => apiRequest<T>(path, { ...options, method: 'POST', body }),
  put: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) => apiRequest<T>(path, { ...options, method: 'PUT', body }),
  patch: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) => apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  delete: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) => apiRequest<T>(path, { ...options, method: 'DELETE' }),
};
