import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ErrorResponse,
  PromptConfig,
  PromptConfigUpdate,
  PromptTestRequest,
  PromptTestResult,
  PromptVersionList,
  renderTemplate,
  SlugParams,
} from '@tollbooth/contract';
import { Type } from 'typebox';
import type { AppsService } from '../apps/service.ts';
import { requireAuth } from '../auth/plugin.ts';
import type { ModelRouter } from '../providers/registry.ts';
import { type PromptsService, promptNotFound } from './service.ts';
import { runPromptTest } from './test-run.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
const security = [{ bearer: [] }];
const tags = ['prompts'];

export const promptsRoutes: FastifyPluginAsyncTypebox<{ apps: AppsService; prompts: PromptsService; models: ModelRouter; timeoutMs: number }> = async (
  app,
  { apps, prompts, models, timeoutMs },
) => {
  /** The owner's prompt app, or the same 404 for anyone else and for workflow apps. */
  const ownedPromptApp = async (slug: string, userId: string) => {
    const row = await apps.findOwnedApp(slug, userId);
    if (row.type !== 'prompt') throw promptNotFound();
    return row;
  };

  app.get(
    '/app/:slug/prompt/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Prompt configuration with its active version (owner only)',
        security,
        params: SlugParams,
        response: { 200: PromptConfig, ...errors },
      },
    },
    async (request) => prompts.readPromptConfig((await ownedPromptApp(request.params.slug, requireAuth(request).user.id)).id),
  );

  app.patch(
    '/app/:slug/prompt/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Update model settings; a changed template, system prompt or schema becomes a new active version',
        description: 'Ranges: temperature 0–2, top_p 0–1, frequency/presence penalty -2–2, max_tokens 1–8192. The UI sends changelog "Updated via UI".',
        security,
        params: SlugParams,
        body: PromptConfigUpdate,
        response: { 200: PromptConfig, ...errors },
      },
    },
    async (request) => prompts.updatePromptConfig((await ownedPromptApp(request.params.slug, requireAuth(request).user.id)).id, request.body),
  );

  app.get(
    '/app/:slug/prompt/versions/',
    {
      preHandler: app.authenticate,
      schema: { tags, summary: 'Version history, newest first', security, params: SlugParams, response: { 200: PromptVersionList, ...errors } },
    },
    async (request) => prompts.listVersions((await ownedPromptApp(request.params.slug, requireAuth(request).user.id)).id),
  );

  app.post(
    '/app/:slug/prompt/versions/:version/activate/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Make an earlier version active again (rollback)',
        security,
        params: Type.Object({ slug: SlugParams.properties.slug, version: Type.Integer({ minimum: 1 }) }),
        response: { 200: PromptConfig, ...errors },
      },
    },
    async (request) => prompts.activateVersion((await ownedPromptApp(request.params.slug, requireAuth(request).user.id)).id, request.params.version),
  );

  app.post(
    '/app/:slug/prompt/test-config/',
    {
      preHandler: app.authenticate,
      schema: {
        tags,
        summary: 'Render a template with test inputs and report its variables and problems',
        security,
        params: SlugParams,
        body: PromptTestRequest,
        response: { 200: PromptTestResult, ...errors },
      },
    },
    async (request) => {
      const row = await ownedPromptApp(request.params.slug, requireAuth(request).user.id);
      const body = request.body;
      const result = renderTemplate(body.prompt_template, body.test_inputs ?? {});
      const rendered = {
        success: result.ok,
        message: result.ok ? 'Template rendered successfully' : 'Template has problems',
        error: result.ok ? null : result.error,
        rendered_template: result.text,
        detected_variables: result.variables,
      };
      if (!body.run || !result.ok) return rendered;
      // Unset settings fall back to the app's saved configuration.
      const saved = await prompts.readPromptConfig(row.id);
      try {
        const answer = await runPromptTest(models, timeoutMs, {
          model: body.model ?? saved.model,
          systemPrompt: body.system_prompt ?? saved.system_prompt,
          renderedTemplate: result.text,
          temperature: body.temperature ?? saved.temperature,
          maxTokens: body.max_tokens ?? saved.max_tokens,
          topP: body.top_p ?? saved.top_p,
          frequencyPenalty: body.frequency_penalty ?? saved.frequency_penalty,
          presencePenalty: body.presence_penalty ?? saved.presence_penalty,
          outputSchema: saved.active_version.output_schema,
        });
        return { ...rendered, message: 'Template rendered and the model answered', ...answer };
      } catch (error) {
        return { ...rendered, success: false, message: 'The model call failed', error: (error as Error).message };
      }
    },
  );
};
