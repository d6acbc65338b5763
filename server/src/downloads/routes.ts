import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, FrontendDownloadQuery, SlugParams } from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
import type { DownloadsService } from './service.ts';

export const downloadsRoutes: FastifyPluginAsyncTypebox<{ downloads: DownloadsService }> = async (app, { downloads }) => {
  app.get(
    '/app/:slug/download-frontend',
    {
      preHandler: app.authenticate,
      schema: {
        tags: ['applications'],
        summary: 'Download a generated front-end app for the endpoint, as a zip (anyone who may call it)',
        description:
          'A React + Vite app with a tiny Node server that holds the API key and proxies calls (streaming passed through). ' +
          'The file is {slug}-{type}-app.zip, or {slug}-workflow-app.zip for a workflow app. The same configuration always gives a byte-identical archive. ' +
          'Anyone who may call the app downloads it (a live public or embed app; the owner for any status): it holds only the name, price and inputs, ' +
          "never the owner's prompt or provider settings, and runs on the API key its user enters in its .env.",
        security: [{ bearer: [] }],
        params: SlugParams,
        querystring: FrontendDownloadQuery,
        response: {
          200: {
            description: 'The zip archive',
            content: { 'application/zip': { schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }) } },
          },
          400: ErrorResponse,
          401: ErrorResponse,
          404: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const { fileName, stream } = await downloads.downloadFrontend(request.params.slug, requireAuth(request).user.id, request.query.type);
      return reply
        .header('Content-Type', 'application/zip')
        .header('Content-Disposition', `attachment; filename="${fileName}"`)
        .header('Cache-Control', 'no-store')
        .header('X-Content-Type-Options', 'nosniff')
        .send(stream);
    },
  );
};
