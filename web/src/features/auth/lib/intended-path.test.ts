import { describe, expect, it } from 'vitest';
import { consumeIntendedPath, INTENDED_PATH_KEY, readIntendedPath, rememberIntendedPath } from './intended-path';

describe('intended path', () => {
  it('is stored in sessionStorage under tollbooth.intendedPath', () => {
    expect(INTENDED_PATH_KEY).toBe('tollbooth.intendedPath');
    expect(rememberIntendedPath('/applications/my-app?tab=billing')).toBe(true);
    expect(window.sessionStorage.getItem('tollbooth.intendedPath')).toBe('/applications/my-app?tab=billing');
  });

  it.each(['/login', '/auth/login', '/register', '/auth/register', '/login?next=1', '/register/', '/auth/callback?code=x'])(
    'is not stored for the sign-in page %s',
    (path) => {
      rememberIntendedPath('/profile');
      expect(rememberIntendedPath(path)).toBe(false);
      expect(readIntendedPath()).toBe('/profile');
    },
  );

  it('is not stored for other origins', () => {
    expect(rememberIntendedPath('//evil.example/path')).toBe(false);
    expect(rememberIntendedPath('https://evil.example/')).toBe(false);
    expect(window.sessionStorage.getItem(INTENDED_PATH_KEY)).toBeNull();
  });

  it('is cleared once consumed', () => {
    rememberIntendedPath('/analytics');
    expect(consumeIntendedPath()).toBe('/analytics');
    expect(consumeIntendedPath()).toBeNull();
    expect(window.sessionStorage.getItem(INTENDED_PATH_KEY)).toBeNull();
  });

  it('ignores a tampered stored value', () => {
    window.sessionStorage.setItem(INTENDED_PATH_KEY, '//evil.example');
    expect(readIntendedPath()).toBeNull();
  });
});
