// Bring your own key: the signed-in creator's own provider keys (own-keys-service.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CredentialKind,
  ErrorResponse,
  ProviderCredential,
  ProviderCredentialList,
  ProviderCredentialSave,
  ProviderCredentialTest,
  ProviderCredentialTestResult,
} from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
import { noContent } from '../http/route-schema.ts';
import type { OwnKeysService } from './own-keys-service.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
const secured = { security: [{ bearer: [] }] };
const params = Type.Object({ kind: CredentialKind });
const tags = ['profile'];

export const ownKeysRoutes: FastifyPluginAsyncTypebox<{ ownKeys: OwnKeysService }> = async (app, { ownKeys }) => {
  app.get(
    '/profile/provider-keys/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Your own provider credentials (bring your own key), keys masked',
        ...secured,
        response: { 200: ProviderCredentialList, ...errors },
      },
    },
    async (request) => ownKeys.list(requireAuth(request).user.id),
  );

  app.put(
    '/profile/provider-keys/:kind/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Add or replace your own credential for a provider',
        description:
          'The key is stored encrypted and shown masked. `base_url` (kind openai) may not reach private or loopback addresses unless the server allows it (ALLOW_PRIVATE_PROVIDER_URLS). Leave `api_key` out to keep the stored key.',
        ...secured,
        params,
        body: ProviderCredentialSave,
        response: { 200: ProviderCredential, ...errors },
      },
    },
    async (request) => ownKeys.save(requireAuth(request).user.id, request.params.kind, request.body),
  );

  app.delete(
    '/profile/provider-keys/:kind/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Remove your own credential for a provider',
        description: 'Apps on your own key for this provider answer 403 (own_key_missing) until you add one again.',
        ...secured,
        params,
        response: { 204: Type.Null(), ...errors },
      },
    },
    noContent(async (request) => ownKeys.remove(requireAuth(request).user.id, request.params.kind)),
  );

  app.post(
    '/profile/provider-keys/:kind/test/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Test Connection: ask the provider for one token',
        description: 'With `api_key` and/or `base_url`, tests those (unsaved) values; without, the stored credential. Nothing is saved or charged.',
        ...secured,
        params,
        body: ProviderCredentialTest,
        response: { 200: ProviderCredentialTestResult, ...errors },
      },
    },
    async (request) => ownKeys.test(requireAuth(request).user.id, request.params.kind, request.body),
  );
};
