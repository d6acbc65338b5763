import { describe, expect, it } from 'vitest';
import { redactUrl } from './logging.ts';

describe('request log redaction', () => {
  it('hides the query strings of /oidc and /auth/callback, keeps others', () => {
    expect(redactUrl('/auth/callback?code=secret-code&state=s')).toBe('/auth/callback?[redacted]');
    expect(redactUrl('/oidc/session/end?id_token_hint=eyJ.a.b')).toBe('/oidc/session/end?[redacted]');
    expect(redactUrl('/oidc/auth?code_challenge=x')).toBe('/oidc/auth?[redacted]');
    expect(redactUrl('/api/apps/?limit=5')).toBe('/api/apps/?limit=5');
    expect(redactUrl('/oidcx?a=1')).toBe('/oidcx?a=1');
  });
});
