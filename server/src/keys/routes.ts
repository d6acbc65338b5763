import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiKeyCreate, ApiKeyCreated, ApiKeyList, ApiKeyListQuery, ApiKeyParams } from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
import { pageQueryProperties, sendPageHeaders } from '../http/pagination.ts';
import { SIGNED_IN_ERRORS as errors, noContent, signedInRoutes } from '../http/route-schema.ts';
import type { ApiKeysService } from './service.ts';

const tags = ['api keys'];
const KEY_PAGE = { defaultLimit: 100, maxLimit: 100 };

export const keysRoutes: FastifyPluginAsyncTypebox<{ keys: ApiKeysService }> = async (app, { keys }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  app.get(
    '/keys/',
    signedIn({
      summary: "The signed-in user's API keys, newest first",
      description: `Revoked keys are left out unless include_revoked=true. The key itself is never listed, only its prefix. Paged: \`limit\` (1–${KEY_PAGE.maxLimit}, default ${KEY_PAGE.defaultLimit}) and \`cursor\`; the X-Has-More, X-Next-Cursor and Link headers describe the page.`,
      querystring: Type.Object({ ...ApiKeyListQuery.properties, ...pageQueryProperties(KEY_PAGE) }),
      response: { 200: ApiKeyList, ...errors },
    }),
    async (request, reply) => {
      const { include_revoked: includeRevoked, kind, limit = KEY_PAGE.defaultLimit, cursor } = request.query;
      return sendPageHeaders(reply, await keys.listKeys(requireAuth(request).user, { includeRevoked, kind, limit, cursor }));
    },
  );

  app.post(
    '/keys/',
    signedIn({
      summary: 'Create an API key (secret tb_… or publishable pk_…)',
      description:
        'The answer carries the full key in `key`. A secret key (the default) is shown this once and cannot be read back. ' +
        'A publishable key (`kind: "publishable"`) is for the embed widget (`/embed/{slug}`): public by design and listed whole, it needs ' +
        '`allowed_origins` (the websites that may frame the widget), `app_slugs` (the apps it may call: live public or embed apps, or your own), ' +
        '`daily_spend_limit_cents` and `monthly_spend_limit_cents`, and takes `visitor_rate_limit_per_minute` (default 10). It calls only from the widget frame and manages nothing.',
      body: ApiKeyCreate,
      response: { 201: ApiKeyCreated, ...errors },
    }),
    // The answer carries the key itself: no cache (browser, proxy) may keep it.
    async (request, reply) =>
      reply
        .status(201)
        .header('Cache-Control', 'no-store')
        .send(await keys.createKey(requireAuth(request).user.id, request.body)),
  );

  app.delete(
    '/keys/:id/',
    signedIn({
      summary: 'Revoke an API key',
      description: 'The key stops authenticating at once. It stays listed with include_revoked=true; revoking it again changes nothing.',
      params: ApiKeyParams,
      response: { 204: Type.Null(), ...errors },
    }),
    noContent(async (request) => keys.revokeKey(requireAuth(request).user.id, request.params.id)),
  );
};
