// Where to send the user after sign-in: the page they asked for before being sent to sign in.

export const INTENDED_PATH_KEY = 'tollbooth.intendedPath';

/** Pages that must never be remembered: returning to them after sign-in would loop. */
const SIGN_IN_PAGES = new Set(['/login', '/auth/login', '/register', '/auth/register', '/auth/callback']);

function pathnameOf(path: string): string {
  const end = path.search(/[?#]/);
  const pathname = end === -1 ? path : path.slice(0, end);
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
}

/** Only same-origin absolute paths: "/x" but not "//evil.example" or "https://…". */
function isSafeLocalPath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}

export function shouldRememberPath(path: string): boolean {
  return isSafeLocalPath(path) && !SIGN_IN_PAGES.has(pathnameOf(path));
}

/** Stores the path (with its query) unless it is a sign-in page. Returns whether it was stored. */
export function rememberIntendedPath(path: string): boolean {
  if (!shouldRememberPath(path)) return false;
  try {
    window.sessionStorage.setItem(INTENDED_PATH_KEY, path);
    return true;
  } catch (error) {
    console.warn('Could not store the intended path', error);
    return false;
  }
}

export function readIntendedPath(): string | null {
  try {
    const path = window.sessionStorage.getItem(INTENDED_PATH_KEY);
    return path && shouldRememberPath(path) ? path : null;
  } catch {
    return null;
  }
}

export function clearIntendedPath(): void {
  try {
    window.sessionStorage.removeItem(INTENDED_PATH_KEY);
  } catch {
    // Storage may be unavailable (private mode); nothing to clear then.
  }
}

/** Reads and clears the stored path. */
export function consumeIntendedPath(): string | null {
  const path = readIntendedPath();
  clearIntendedPath();
  return path;
}
