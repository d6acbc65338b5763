// GET /embed/{slug}: the embed widget's page (service.ts has the rules). Its calls go through the
// gateway's /api/embed/{slug}/…-messages routes, which authenticate with embed's authenticateCall.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SlugParams } from '@tollbooth/contract';
import { Type } from 'typebox';
import type { EmbedService } from './service.ts';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export const embedRoutes: FastifyPluginAsyncTypebox<{ embed: EmbedService }> = async (app, { embed }) => {
  app.get(
    '/embed/:slug',
    {
      schema: {
        // An HTML page for browsers, not an API operation: left out of the OpenAPI document.
        hide: true,
        tags: ['embed'],
        summary: "An app's embed widget (HTML), framed only on the publishable key's origins",
        description:
          'Query: key (a publishable key, pk_…), theme (light or dark). Answers an HTML page whose Content-Security-Policy frame-ancestors are exactly the ' +
          "key's allowed origins. Refused (an HTML notice, 401/403/404) when the key is unknown or revoked, when the page is not loaded as a frame, when the " +
          'frame\'s ancestor is not one of the key\'s origins, or when the key may not call the app. Add it to a page with the snippet `<script src="{origin}/embed/loader.js" data-app="{slug}" data-key="pk_…" async></script>`.',
        params: SlugParams,
        querystring: Type.Object({ key: Type.Optional(Type.String({ maxLength: 100 })), theme: Type.Optional(Type.String({ maxLength: 10 })) }),
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const answer = await embed.renderWidget({
        slug: request.params.slug,
        key: request.query.key,
        theme: request.query.theme,
        fetchDest: header(request.headers['sec-fetch-dest']),
        referer: header(request.headers.referer),
      });
      return (
        reply
          .status(answer.status)
          .header('Content-Security-Policy', answer.csp)
          .header('X-Content-Type-Options', 'nosniff')
          .header('Referrer-Policy', 'no-referrer')
          // The page carries a frame token for this load only.
          .header('Cache-Control', 'no-store')
          .type('text/html; charset=utf-8')
          .send(answer.html)
      );
    },
  );
};
