// Sign-in itself happens at the identity provider (OIDC code + PKCE in the browser). These calls
// tell a client where to start it, end the provider sessions on sign-out, and list roles.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, LogoutResult, Roles, SignInStart } from '@tollbooth/contract';
import type { Config } from '../platform/config.ts';
import { requireAuth } from './plugin.ts';
import type { UsersService } from './users-service.ts';

export const authRoutes: FastifyPluginAsyncTypebox<{ config: Config; users: UsersService }> = async (app, { config, users }) => {
  const signInStart = (prompt: 'login' | 'create') => ({
    issuer: config.oidc.issuer,
    authorization_endpoint: config.oidc.embedded ? `${config.oidc.issuer}/auth` : `${config.oidc.issuer}`,
    client_id: config.oidc.clientId,
    audience: config.oidc.audience,
    scopes: 'openid profile email offline_access',
    prompt,
    provider_name: config.oidc.providerName,
  });
  const startDescription =
    'Answers where a client starts the authorization-code + PKCE flow. The browser goes to authorization_endpoint with these parameters; passwords never reach this API.';

  app.post(
    '/auth/login/',
    {
      schema: {
        tags: ['auth'],
        summary: 'Where to start signing in',
        description: startDescription,
        security: [],
        response: { 200: SignInStart, 400: ErrorResponse },
      },
    },
    async () => signInStart('login'),
  );
  app.post(
    '/auth/register/',
    {
      schema: {
        tags: ['auth'],
        summary: 'Where to start signing up (prompt=create)',
        description: startDescription,
        security: [],
        response: { 200: SignInStart, 400: ErrorResponse },
      },
    },
    async () => signInStart('create'),
  );

  app.post(
    '/auth/logout/',
    {
      preHandler: app.authenticate,
      schema: {
        tags: ['auth'],
        summary: 'End the provider sessions of the signed-in user',
        description: 'With the embedded provider every session and refresh token of the account is revoked. The client then clears its tokens.',
        security: [{ bearer: [] }],
        response: { 200: LogoutResult, 401: ErrorResponse },
      },
    },
    async (request) => {
      const { subject } = requireAuth(request);
      if (app.embeddedOidc) await app.embeddedOidc.revokeAccountSessions(subject);
      return { end_session_endpoint: config.oidc.embedded ? `${config.oidc.issuer}/session/end` : null };
    },
  );

  app.get(
    '/auth/roles/',
    {
      preHandler: app.authenticate,
      schema: { tags: ['auth'], summary: 'Roles of the signed-in user', security: [{ bearer: [] }], response: { 200: Roles, 401: ErrorResponse } },
    },
    async (request) => ({ roles: await users.readRoles(requireAuth(request).user.id) }),
  );
};
