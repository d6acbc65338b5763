import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthOk, HealthUnavailable, RuntimeConfig } from '@tollbooth/contract';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { ModelRouter } from '../providers/registry.ts';

export const healthRoutes: FastifyPluginAsyncTypebox<{ config: Config; db: Database; models: ModelRouter }> = async (app, { config, db, models }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness and database check',
        response: {
          200: HealthOk,
          503: HealthUnavailable,
        },
      },
    },
    async (_request, reply) => {
      try {
        await db.query('SELECT 1');
        return { status: 'ok' as const, database: db.kind };
      } catch {
        return reply.status(503).send({ status: 'unavailable' as const, database: db.kind });
      }
    },
  );

  app.get(
    '/config',
    {
      schema: {
        tags: ['system'],
        summary: 'Public runtime settings for the web app',
        response: {
          200: RuntimeConfig,
        },
      },
    },
    async () => ({
      product_name: config.productName,
      oidc: {
        issuer: config.oidc.issuer,
        client_id: config.oidc.clientId,
        audience: config.oidc.audience,
        provider_name: config.oidc.providerName,
        embedded: config.oidc.embedded,
        scopes: 'openid profile email offline_access',
      },
      stripe_publishable_key: config.stripe.secretKey ? config.stripe.publishableKey : null,
      public_url: config.publicUrl,
      demo_models: models.demoModels(),
    }),
  );
};
