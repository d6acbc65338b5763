import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, HealthOk, HealthUnavailable, RuntimeConfig } from '@tollbooth/contract';
import type { HealthService } from './service.ts';

export const healthRoutes: FastifyPluginAsyncTypebox<{ health: HealthService }> = async (app, { health }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness and database check',
        security: [],
        response: {
          200: HealthOk,
          // A query string that cannot be stored (request-guards.ts), as on every route.
          400: ErrorResponse,
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
        security: [],
        response: {
          200: RuntimeConfig,
          400: ErrorResponse,
        },
      },
    },
    async () => health.runtimeConfig(),
  );
};
