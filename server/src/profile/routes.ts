import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CreatorList, CreatorMe, CreatorUpdate, ErrorResponse, Profile, ProfileUpdate } from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
import { CursorParam, sendPageHeaders } from '../http/pagination.ts';
import { invalidParam } from '../platform/errors.ts';
import type { ProfileService } from './service.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
const secured = { security: [{ bearer: [] }] };

export const profileRoutes: FastifyPluginAsyncTypebox<{ profile: ProfileService }> = async (app, { profile }) => {
  app.get(
    '/auth/profile/',
    {
      preHandler: app.authenticate,
      schema: { tags: ['profile'], summary: 'The signed-in user and creator profile', ...secured, response: { 200: Profile, ...errors } },
    },
    async (request) => profile.readProfile(requireAuth(request).user.id),
  );

  app.patch(
    '/auth/profile/',
    {
      preHandler: app.authenticate,
      schema: {
        tags: ['profile'],
        summary: 'Update names and username (e-mail cannot change)',
        description:
          'Body: `user` (the user object with edited first_name, last_name, display_name, username; other fields are ignored, but a different email is a 400) and `creator` ({display_name} or null).',
        ...secured,
        body: ProfileUpdate,
        response: { 200: Profile, ...errors },
      },
    },
    async (request) => profile.updateProfile(requireAuth(request).user, request.body),
  );

  app.get(
    '/creators/me/',
    { preHandler: app.authenticate, schema: { tags: ['profile'], summary: 'The signed-in creator', ...secured, response: { 200: CreatorMe, ...errors } } },
    async (request) => profile.readCreatorMe(requireAuth(request).user.id),
  );

  app.patch(
    '/creators/me/',
    {
      preHandler: app.authenticate,
      schema: { tags: ['profile'], summary: 'Change the creator display name', ...secured, body: CreatorUpdate, response: { 200: CreatorMe, ...errors } },
    },
    async (request) => profile.updateCreatorMe(requireAuth(request).user.id, request.body.display_name),
  );

  app.get(
    '/creators/',
    {
      preHandler: app.authenticate,
      schema: {
        tags: ['profile'],
        summary: 'Public directory of creators (display names only)',
        description:
          'Oldest first, paged like every list: `limit` (1–100, default 50) and `cursor` (the previous page’s `next_cursor`); the body’s `has_more` and `next_cursor` and the X-Has-More, X-Next-Cursor and Link headers describe the page. `offset` is the old way to page, kept for one release (answers carry `Deprecation: true`); it cannot be combined with `cursor`.',
        ...secured,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          cursor: CursorParam,
          offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Deprecated: use cursor' })),
        }),
        response: { 200: CreatorList, ...errors },
      },
    },
    async (request, reply) => {
      const { limit, cursor, offset } = request.query;
      if (offset !== undefined && cursor !== undefined) throw invalidParam('offset', 'cannot be combined with cursor; page with cursor alone');
      if (offset !== undefined) reply.header('Deprecation', 'true');
      const page = await profile.listCreators(requireAuth(request).user, limit, cursor, offset ?? 0);
      sendPageHeaders(reply, { items: page.results, has_more: page.has_more, next_cursor: page.next_cursor });
      return page;
    },
  );
};
