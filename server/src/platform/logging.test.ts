import { describe, expect, it } from 'vitest';
import { redactUrl } from './logging.ts';

describe('request log redaction', () => {
  it('hides the query strings of /oidc and /auth/callback, keeps others', () => {
    const logged: [url: string, as: string][] = [
      ['/auth/callback?code=secret-code&state=s', '/auth/callback?[redacted]'],
      ['/oidc/session/end?id_token_hint=eyJ.a.b', '/oidc/session/end?[redacted]'],
      ['/oidc/auth?code_challenge=x', '/oidc/auth?[redacted]'],
      ['/api/apps/?limit=5', '/api/apps/?limit=5'],
      ['/oidcx?a=1', '/oidcx?a=1'],
    ];
    for (const [url, as] of logged) expect(redactUrl(url), url).toBe(as);
  });
});
