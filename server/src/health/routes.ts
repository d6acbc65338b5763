import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';

export const healthRoutes: FastifyPluginAsyncTypebox<{ config: Config; db: Database }> = async (app, { config, db }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness and database check',
        response: {
          200: Type.Object({ status: Type.Literal('ok'), database: Type.String() }),
          503: Type.Object({ status: Type.Literal('unavailable'), database: Type.String() }),
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
          200: Type.Object({
            product_name: Type.String(),
            oidc: Type.Object({
              issuer: Type.String(),
              client_id: Type.String(),
              audience: Type.String(),
              provider_name: Type.String(),
              embedded: Type.Boolean(),
              scopes: Type.String(),
            }),
            stripe_publishable_key: Type.Union([Type.String(), Type.Null()]),
            public_url: Type.String(),
          }),
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
    }),
  );
};
