// The embed widget's door: GET /embed/{slug}, the widget's page (service.ts has the rules), and its
// calls, POST /api/embed/{slug}/…-messages: Dify's message call and answer (dify/messages-service.ts),
// paid by a publishable key that only works from its frame (embed's authenticateCall).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type CallRequest, ErrorResponse, originOf, SlugParams } from '@tollbooth/contract';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { createMessageDoor, messageCallSchema, type RunningTasks } from '../dify/messages-service.ts';
import { type Authenticate, paidCallRoute } from '../gateway/door-service.ts';
import type { GatewayService } from '../gateway/service.ts';
import { EMBED_TOKEN_HEADER, type EmbedService } from './service.ts';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export const embedRoutes: FastifyPluginAsyncTypebox<{ embed: EmbedService; gateway: GatewayService; tasks: RunningTasks }> = async (
  app,
  { embed, gateway, tasks },
) => {
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

  // The snippet asks before it draws anything (issue 61): from any website, so any origin may read the answer.
  app.get(
    '/embed/:slug/check',
    {
      schema: {
        tags: ['embed'],
        summary: 'Whether the widget may show on the calling page (the snippet asks before drawing)',
        description:
          "Query: key (pk_…), origin (the page's origin, used when the browser sends no Origin header). Answers whether the key's widget may be " +
          'framed there and, when not, why (reason) and the near misses (hints: www, ports, localhost vs 127.0.0.1). Informs only: the frame is what enforces.',
        security: [],
        params: SlugParams,
        querystring: Type.Object({ key: Type.Optional(Type.String({ maxLength: 100 })), origin: Type.Optional(Type.String({ maxLength: 300 })) }),
        response: {
          400: ErrorResponse,
          200: Type.Object({
            allowed: Type.Boolean(),
            reason: Type.Union([
              Type.Literal('ok'),
              Type.Literal('origin_not_allowed'),
              Type.Literal('invalid_key'),
              Type.Literal('revoked'),
              Type.Literal('app_not_embeddable'),
            ]),
            message: Type.String(),
            origin: Type.Union([Type.String(), Type.Null()]),
            hints: Type.Array(Type.String()),
          }),
        },
      },
    },
    async (request, reply) => {
      const sent = header(request.headers.origin);
      const origin = (sent && sent !== 'null' ? originOf(sent) : null) ?? (request.query.origin ? originOf(request.query.origin) : null);
      const answer = await embed.checkEmbed({ slug: request.params.slug, key: request.query.key, origin });
      return reply.header('Access-Control-Allow-Origin', '*').header('Cache-Control', 'no-store').send(answer);
    },
  );

  // The widget's calls: the same call, paid by the widget's publishable key.
  const answerMessage = createMessageDoor(gateway, tasks, 'embed');
  const authenticateWidget: Authenticate = async (request: FastifyRequest) => {
    request.auth = await embed.authenticateCall({
      slug: (request.params as { slug: string }).slug,
      visitor: (request.body as CallRequest | undefined)?.user,
      authorization: request.headers.authorization,
      token: request.headers[EMBED_TOKEN_HEADER] as string | undefined,
      origin: request.headers.origin,
    });
  };
  for (const mode of ['completion', 'chat'] as const) {
    app.post(
      `/api/embed/:slug/${mode}-messages`,
      paidCallRoute(
        messageCallSchema(
          'embed',
          mode === 'completion' ? "The embed widget's completion call" : "The embed widget's chat message",
          'Called by the embed widget only (`/embed/{slug}`): `Authorization: Bearer <publishable key>`, the frame token in X-Embed-Token, the ' +
            'visitor id in `user`, and the browser Origin of the widget frame itself. The body and answers are those of the app call. ' +
            'Refused, and not charged: another origin or none (403 forbidden), a revoked key (401), an app the key may not call (403), a visitor over ' +
            "the key's per-minute limit (429), the daily or monthly spend cap reached (402 key_limit_exceeded).",
        ),
      ),
      async (request, reply) => answerMessage(request, reply, request.params.slug, mode, request.body, authenticateWidget),
    );
  }
};
