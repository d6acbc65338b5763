import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppInputs, CatalogAppDetail, CatalogPage, CatalogQuery, ErrorResponse, SlugParams } from '@tollbooth/contract';
import { Type } from 'typebox';
import { cacheValidators } from '../http/cache-validators.ts';
import { sendPageHeaders } from '../http/pagination.ts';
import type { CatalogService } from './service.ts';

const tags = ['catalog'];
const errors = { 400: ErrorResponse, 404: ErrorResponse };

// The catalog is public and the same for everyone: shared caches may keep it a minute.
const publicCache = cacheValidators({ cacheControl: () => 'public, max-age=60' });
// An app's document or inputs: public for anyone without a token; an owner's own view (any status)
// only in their browser, revalidated each time.
const perViewerCache = cacheValidators({
  cacheControl: (request) => (request.headers.authorization ? 'private, no-cache' : 'public, max-age=300'),
  vary: 'Authorization',
});

export const catalogRoutes: FastifyPluginAsyncTypebox<{ catalog: CatalogService }> = async (app, { catalog }) => {
  app.get(
    '/catalog/',
    {
      onSend: publicCache,
      schema: {
        tags,
        summary: 'The public catalog: live public applications (no sign-in)',
        description:
          'Private, embed, draft, archived and deleted applications never appear. Search with q (every word must match the name, description, slug or creator), filter by type, mode and price, sort by popular (successful calls over 30 days), newest or price. Paged: pass next_cursor as cursor while has_more is true.',
        security: [],
        querystring: CatalogQuery,
        response: { 200: CatalogPage, ...errors },
      },
    },
    async (request, reply) => {
      const page = await catalog.listApps(request.query);
      sendPageHeaders(reply, { items: page.results, has_more: page.has_more, next_cursor: page.next_cursor });
      return page;
    },
  );

  app.get(
    '/catalog/:slug',
    {
      onSend: publicCache,
      schema: {
        tags,
        summary: "A live public application's public page",
        description: 'Its inputs, active plans, endpoints and copy-ready snippets (replace YOUR_API_KEY with an API key). 404 for any app not in the catalog.',
        security: [],
        params: SlugParams,
        response: { 200: CatalogAppDetail, ...errors },
      },
    },
    async (request) => catalog.readApp(request.params.slug),
  );

  app.get(
    '/app/:slug/openapi.json',
    {
      preHandler: app.authenticateOptional,
      onSend: perViewerCache,
      schema: {
        tags,
        summary: "An application's own OpenAPI 3.1 document, generated from its inputs",
        description: 'Anyone for a live public or embed application; the owner for any status; otherwise 404.',
        security: [{}, { bearer: [] }],
        params: SlugParams,
        response: { 200: Type.Object({ openapi: Type.String() }, { additionalProperties: true }), ...errors },
      },
    },
    async (request) => catalog.openApiDocument(request.params.slug, request.auth?.user.id ?? null),
  );

  app.get(
    '/app/:slug/inputs',
    {
      preHandler: app.authenticateOptional,
      onSend: perViewerCache,
      schema: {
        tags,
        summary: "An application's inputs: the fields its calls take and the endpoint mode",
        description: 'Anyone for a live public or embed application; the owner for any status; otherwise 404. The API test console reads it.',
        security: [{}, { bearer: [] }],
        params: SlugParams,
        response: { 200: AppInputs, ...errors },
      },
    },
    async (request) => catalog.readInputs(request.params.slug, request.auth?.user.id ?? null),
  );
};
