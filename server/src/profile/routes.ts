import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CreatorList, CreatorMe, CreatorUpdate, ErrorResponse, Profile, ProfileUpdate } from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
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
        ...secured,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
        }),
        response: { 200: CreatorList, ...errors },
      },
    },
    async (request) => profile.listCreators(request.query.limit, request.query.offset),
  );
};
