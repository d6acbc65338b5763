import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ErrorResponse,
  SlugParams,
  WorkflowConfig,
  WorkflowConfigUpdate,
  WorkflowProviderList,
  WorkflowTestRequest,
  WorkflowTestResult,
  WorkflowVersionCreate,
  WorkflowVersionList,
} from '@tollbooth/contract';
import { Type } from 'typebox';
import type { AppsService } from '../apps/service.ts';
import { requireAuth } from '../auth/plugin.ts';
import { hopHeaderOf } from '../http/call-chain.ts';
import { SIGNED_IN_ERRORS as errors, signedInRoutes } from '../http/route-schema.ts';
import { AppError } from '../platform/errors.ts';
import { type WorkflowsService, workflowNotFound } from './service.ts';

const tags = ['workflows'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const workflowsRoutes: FastifyPluginAsyncTypebox<{ apps: AppsService; workflows: WorkflowsService }> = async (app, { apps, workflows }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  /** The owner's workflow app, or the same 404 for anyone else and for prompt apps. */
  const ownedWorkflowApp = async (slug: string, userId: string) => {
    const row = await apps.findOwnedApp(slug, userId).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'not_found') throw workflowNotFound();
      throw error;
    });
    if (row.type !== 'workflow') throw workflowNotFound();
    return row;
  };

  /** /workflows/{id}/: the app's id, or its slug. */
  const ownedWorkflowById = async (id: string, userId: string) => {
    if (!UUID.test(id)) return ownedWorkflowApp(id, userId);
    const slug = await workflows.slugOfApp(id);
    if (!slug) throw workflowNotFound();
    return ownedWorkflowApp(slug, userId);
  };

  app.get(
    '/workflow-providers/',
    {
      schema: {
        tags,
        summary: 'The workflow providers and their configuration schemas',
        description: 'Fields marked secret are stored encrypted and returned masked (last 4 characters).',
        security: [],
        response: { 200: WorkflowProviderList, 400: ErrorResponse },
      },
    },
    async () => workflows.listProviders(),
  );

  app.post(
    '/workflow-providers/test-config/',
    signedIn({
      summary: 'Check provider settings before an app exists (the create form)',
      description: 'Like POST /app/{slug}/workflow/test-config/ without a stored configuration to fill unsent fields from.',
      body: WorkflowTestRequest,
      response: { 200: WorkflowTestResult, ...errors },
    }),
    async (request) => workflows.testConfig(null, request.body, hopHeaderOf(request)),
  );

  app.get(
    '/app/:slug/workflow/',
    signedIn({
      summary: 'Workflow configuration (owner only)',
      description:
        'provider, provider_config (secrets masked), timeout_seconds (default 300), max_iterations (default 10), enable_logging (default true), and app_info: what the provider said about the app (name, description, mode, user_input_form), null until checked.',
      params: SlugParams,
      response: { 200: WorkflowConfig, ...errors },
    }),
    async (request) => workflows.readConfig(await ownedWorkflowApp(request.params.slug, requireAuth(request).user.id)),
  );

  app.patch(
    '/app/:slug/workflow/',
    signedIn({
      summary: 'Update the workflow configuration; a save that changes it is a new version',
      description:
        'timeout_seconds 1–600 bounds each upstream call (504 provider_timeout, not charged). max_iterations 1–1000 is the number of turns one chat conversation may have. enable_logging keeps (true) or drops (false) the query and answer of chat turns. A masked secret sent back keeps the stored one. The provider URL must not reach a private or loopback address. The app is checked against the provider and its input form cached. A save that changes nothing (a masked or re-typed identical key included) writes no version; provider settings changed through PATCH /app/{slug}/ are a version too.',
      params: SlugParams,
      body: WorkflowConfigUpdate,
      response: { 200: WorkflowConfig, ...errors },
    }),
    async (request) => workflows.updateConfig(await ownedWorkflowApp(request.params.slug, requireAuth(request).user.id), request.body, hopHeaderOf(request)),
  );

  app.post(
    '/app/:slug/workflow/test-config/',
    signedIn({
      summary: 'Check provider settings against the provider (Dify: GET /info and GET /parameters)',
      description:
        'Answers success, message, error and app_info; a bad key, an unreachable URL or a blocked address is success false with the reason. Unsent or masked fields come from the stored configuration.',
      params: SlugParams,
      body: WorkflowTestRequest,
      response: { 200: WorkflowTestResult, ...errors },
    }),
    async (request) => workflows.testConfig(await ownedWorkflowApp(request.params.slug, requireAuth(request).user.id), request.body, hopHeaderOf(request)),
  );

  const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 120, description: "The workflow app's id (or its slug)" }) });

  app.get(
    '/workflows/:id/versions/',
    signedIn({
      summary: 'Numbered versions of the workflow configuration, newest first',
      params: IdParams,
      response: { 200: WorkflowVersionList, ...errors },
    }),
    async (request) => workflows.listVersions(await ownedWorkflowById(request.params.id, requireAuth(request).user.id)),
  );

  app.post(
    '/workflows/:id/versions/',
    signedIn({
      summary: 'Snapshot the current configuration, or roll back to a version',
      description:
        'With rollback_to: that version becomes current again, recorded as a new version ("Rolled back to version N"). Without: the current configuration is recorded as a new version with the changelog.',
      params: IdParams,
      body: WorkflowVersionCreate,
      response: { 201: WorkflowVersionList, ...errors },
    }),
    async (request, reply) =>
      reply.status(201).send(await workflows.createVersion(await ownedWorkflowById(request.params.id, requireAuth(request).user.id), request.body)),
  );
};
