import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthOk, HealthUnavailable, RuntimeConfig } from '@tollbooth/contract';
import type { HealthService } from './service.ts';

export const healthRoutes: FastifyPluginAsyncTypebox<{ health: HealthService }> = async (app, { health }) => {
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
      const result = await health.checkDatabase();
      return result.status === 'ok' ? result : reply.status(503).send(result);
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
    async () => health.runtimeConfig(),
  );
};
