import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CostEstimate,
  CostEstimateRequest,
  PromptConfig,
  PromptConfigUpdate,
  PromptTestRequest,
  PromptTestResult,
  PromptVersionList,
  SlugParams,
} from '@tollbooth/contract';
import { Type } from 'typebox';
import type { AppsService } from '../apps/service.ts';
import { requireAuth } from '../auth/plugin.ts';
import { SIGNED_IN_ERRORS as errors, signedInRoutes } from '../http/route-schema.ts';
import type { CostEstimator } from './cost-estimate.ts';
import { type PromptsService, promptNotFound } from './service.ts';

const tags = ['prompts'];

export const promptsRoutes: FastifyPluginAsyncTypebox<{ apps: AppsService; prompts: PromptsService; costs: CostEstimator }> = async (
  app,
  { apps, prompts, costs },
) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  /** The owner's prompt app, or the same 404 for anyone else and for workflow apps. */
  const ownedPromptApp = async (slug: string, userId: string) => {
    const row = await apps.findOwnedApp(slug, userId);
    if (row.type !== 'prompt') throw promptNotFound();
    return row;
  };

  app.get(
    '/app/:slug/prompt/',
    signedIn({
      summary: 'Prompt configuration with its active version (owner only)',
      params: SlugParams,
      response: { 200: PromptConfig, ...errors },
    }),
    async (request) => prompts.readPromptConfig((await ownedPromptApp(request.params.slug, requireAuth(request).user.id)).id),
  );

  app.patch(
    '/app/:slug/prompt/',
    signedIn({
      summary: 'Update model settings; a changed template, system prompt or schema becomes a new active version',
      description: 'Ranges: temperature 0–2, top_p 0–1, frequency/presence penalty -2–2, max_tokens 1–8192. The UI sends changelog "Updated via UI".',
      params: SlugParams,
      body: PromptConfigUpdate,
      response: { 200: PromptConfig, ...errors },
    }),
    async (request) =>
      prompts.updatePromptConfig((await ownedPromptApp(request.params.slug, requireAuth(request).user.id)).id, request.body, requireAuth(request).user.id),
  );

  app.get(
    '/app/:slug/prompt/versions/',
    signedIn({ summary: 'Version history, newest first', params: SlugParams, response: { 200: PromptVersionList, ...errors } }),
    async (request) => prompts.listVersions((await ownedPromptApp(request.params.slug, requireAuth(request).user.id)).id),
  );

  app.post(
    '/app/:slug/prompt/versions/:version/activate/',
    signedIn({
      summary: 'Make an earlier version active again (rollback)',
      params: Type.Object({ slug: SlugParams.properties.slug, version: Type.Integer({ minimum: 1 }) }),
      response: { 200: PromptConfig, ...errors },
    }),
    async (request) => prompts.activateVersion((await ownedPromptApp(request.params.slug, requireAuth(request).user.id)).id, request.params.version),
  );

  app.post(
    '/app/:slug/prompt/test-config/',
    signedIn({
      summary: 'Render a template with test inputs and report its variables and problems',
      params: SlugParams,
      body: PromptTestRequest,
      response: { 200: PromptTestResult, ...errors },
    }),
    async (request) => {
      const userId = requireAuth(request).user.id;
      const row = await ownedPromptApp(request.params.slug, userId);
      return prompts.testConfig(row.id, request.body, userId);
    },
  );

  // The builder tests a prompt before it is saved: nothing is created, the configuration is the request's.
  app.post(
    '/prompt/test-config/',
    signedIn({
      summary: 'Test an unsaved prompt configuration (no application needed; nothing is saved)',
      description:
        'Like /app/{slug}/prompt/test-config/, for a prompt that does not exist yet: settings the request leaves out take the builder defaults. Schemas meet the same checks as saving.',
      body: PromptTestRequest,
      response: { 200: PromptTestResult, ...errors },
    }),
    async (request) => {
      return prompts.testConfig(null, request.body, requireAuth(request).user.id);
    },
  );

  // Margin in the builder, detail and edit forms: what one call costs upstream, next to the price.
  app.post(
    '/prompt/cost-estimate/',
    signedIn({
      summary: "A prompt's model cost per call: the model's prices, the worst case at these settings, and the typical cost of its recent calls",
      description:
        "Model cost in micro-dollars (1/10,000 cent), prices in dollars per million tokens. The worst case bounds one completion call: every template variable at its input limit (a string's maxLength; all inputs within 64 KiB of JSON), no tokenizer making more tokens than UTF-8 bytes, and max_tokens of output. With app_slug (the owner's own prompt app; anyone else's is 404), typical_micros is the mean model cost of the app's recent successful calls on the platform keys. Nothing is saved.",
      body: CostEstimateRequest,
      response: { 200: CostEstimate, ...errors },
    }),
    async (request) => {
      const { user } = requireAuth(request);
      const appId = request.body.app_slug ? (await ownedPromptApp(request.body.app_slug, user.id)).id : null;
      return costs.estimate(request.body, appId);
    },
  );
};
