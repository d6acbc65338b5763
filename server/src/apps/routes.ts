import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Application, ApplicationCreate, ApplicationList, ApplicationUpdate, SlugParams, StatusUpdate } from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
import { PageQuery, sendPageHeaders } from '../http/pagination.ts';
import { SIGNED_IN_ERRORS as errors, noContent, signedInRoutes } from '../http/route-schema.ts';
import type { AppsService } from './service.ts';

const tags = ['applications'];
const APP_PAGE = { defaultLimit: 100, maxLimit: 100 };

export const appsRoutes: FastifyPluginAsyncTypebox<{ apps: AppsService }> = async (app, { apps }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  app.get(
    '/app/',
    signedIn({
      summary: "The signed-in user's applications, newest first",
      description: `Paged: \`limit\` (1–${APP_PAGE.maxLimit}, default ${APP_PAGE.defaultLimit}) and \`cursor\`; the X-Has-More, X-Next-Cursor and Link headers describe the page.`,
      querystring: PageQuery(APP_PAGE),
      response: { 200: ApplicationList, ...errors },
    }),
    async (request, reply) => {
      const { limit = APP_PAGE.defaultLimit, cursor } = request.query;
      return sendPageHeaders(reply, await apps.listOwnApps(requireAuth(request).user, { limit, cursor }));
    },
  );

  app.post(
    '/app/',
    signedIn({
      summary: 'Create an application',
      description:
        'Defaults: visibility private, interaction_mode completion, price_cents 100, status draft. The slug comes from the name and gets -2, -3… on collision; it never changes. Workflow apps need provider_config.app_id and provider_config.api_key (stored encrypted, returned masked).',
      body: ApplicationCreate,
      response: { 201: Application, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await apps.createApp(requireAuth(request).user.id, request.body)),
  );

  app.get(
    '/app/:slug/',
    {
      preHandler: app.authenticateOptional,
      schema: {
        tags,
        summary: 'An application by slug',
        description: 'The owner sees everything; anyone else sees a live public or embed application without provider configuration; otherwise 404.',
        security: [{}, { bearer: [] }],
        params: SlugParams,
        response: { 200: Application, ...errors },
      },
    },
    async (request) => apps.readApp(request.params.slug, request.auth?.user.id ?? null),
  );

  app.patch(
    '/app/:slug/',
    signedIn({
      summary: 'Update an application (owner only)',
      params: SlugParams,
      body: ApplicationUpdate,
      response: { 200: Application, ...errors },
    }),
    async (request) => apps.updateApp(request.params.slug, requireAuth(request).user.id, request.body),
  );

  app.patch(
    '/app/:slug/update_status/',
    signedIn({
      summary: 'Set the status: draft, live or archived (any to any)',
      params: SlugParams,
      body: StatusUpdate,
      response: { 200: Application, ...errors },
    }),
    async (request) => apps.updateStatus(request.params.slug, requireAuth(request).user.id, request.body.status),
  );

  app.delete(
    '/app/:slug/',
    signedIn({
      summary: 'Delete an application (owner only)',
      description: 'Its invocations and money history are kept, and its slug is never reused.',
      params: SlugParams,
      response: { 204: Type.Null(), ...errors },
    }),
    noContent(async (request) => apps.deleteApp(request.params.slug, requireAuth(request).user.id)),
  );

  app.post(
    '/app/:slug/duplicate/',
    signedIn({
      summary: 'Duplicate an application as a draft named "{name} copy"',
      params: SlugParams,
      response: { 201: Application, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await apps.duplicateApp(request.params.slug, requireAuth(request).user.id)),
  );
};
