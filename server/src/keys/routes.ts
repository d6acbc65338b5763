import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiKeyCreate, ApiKeyCreated, ApiKeyList, ApiKeyListQuery, ApiKeyParams, ErrorResponse } from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
import type { ApiKeysService } from './service.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
const security = [{ bearer: [] }];
const tags = ['api keys'];

export const keysRoutes: FastifyPluginAsyncTypebox<{ keys: ApiKeysService }> = async (app, { keys }) => {
  app.get(
    '/keys/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: "The signed-in user's API keys, newest first",
        description: 'Revoked keys are left out unless include_revoked=true. The key itself is never listed, only its prefix.',
        security,
        querystring: ApiKeyListQuery,
        response: { 200: ApiKeyList, ...errors },
      },
    },
    async (request) => keys.listKeys(requireAuth(request).user.id, { includeRevoked: request.query.include_revoked }),
  );

  app.post(
    '/keys/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Create an API key',
        description: 'The answer carries the full key in `key`: store it now, it is shown this once and cannot be read back.',
        security,
        body: ApiKeyCreate,
        response: { 201: ApiKeyCreated, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await keys.createKey(requireAuth(request).user.id, request.body)),
  );

  app.delete(
    '/keys/:id/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Revoke an API key',
        description: 'The key stops authenticating at once. It stays listed with include_revoked=true; revoking it again changes nothing.',
        security,
        params: ApiKeyParams,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      await keys.revokeKey(requireAuth(request).user.id, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
