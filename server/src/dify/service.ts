// Dify's Service API around the paid call (docs/decisions/0009): what a Dify client reads about an
// app (parameters, info, meta, site), and the caller's conversations, messages and feedbacks.
// Reading an app's description needs no key for a live public or embed app; everything about
// conversations and messages is the caller's own: another caller's ids answer 404.
import type { IoSchema } from '@tollbooth/contract';
import type { AppRow } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { Database } from '../db/client.ts';
import type { GatewayService } from '../gateway/service.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import { isChatMode } from '../providers/workflows/dify.ts';
import type { InputFormEntry } from '../providers/workflows/types.ts';
import type { WorkflowsService } from '../workflows/service.ts';
import { inputFormFromSchema, parametersAnswer } from './input-form.ts';
import {
  type ConversationListRow,
  deleteConversation,
  selectConversations,
  selectMessages,
  selectOwnConversation,
  selectOwnMessage,
  selectOwnWorkflowRun,
  selectWorkflowRuns,
  updateConversationName,
  upsertFeedback,
  type WorkflowRunRow,
} from './queries.ts';

/** A run as Dify's workflow run detail and log entries describe it (Tollbooth keeps no outputs or steps). */
function runOf(row: WorkflowRunRow, workflowId: string) {
  const createdAt = seconds(new Date(row.created_at));
  return {
    id: row.id,
    workflow_id: workflowId,
    status: row.status === 'success' ? 'succeeded' : row.error_type === 'stopped' ? 'stopped' : 'failed',
    error: row.status === 'success' ? null : row.error_type || 'failed',
    total_steps: 0,
    total_tokens: row.input_tokens + row.output_tokens,
    created_at: createdAt,
    finished_at: createdAt + Math.ceil(row.latency_ms / 1000),
    elapsed_time: row.latency_ms / 1000,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_NAME = 'New conversation';
const GENERATED_NAME_LENGTH = 40;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export interface DifyApiDependencies {
  db: Database;
  workflows: WorkflowsService;
  /** The gateway's lookup of a callable app (gateway/service.ts), cached per process. */
  findTarget: GatewayService['findTarget'];
}

export function createDifyApiService({ db, workflows, findTarget: findCallTarget }: DifyApiDependencies) {
  const findTarget = async (slug: string) => {
    const target = await findCallTarget(slug);
    if (!target) throw new AppError('not_found', 'Application not found');
    return target;
  };

  /**
   * The app, if the caller may call it; anonymous visitors may read a live public or embed app's
   * description. To anyone but its owner an app that is private, a draft or archived is not there
   * (404): a 403 would tell a stranger that the slug exists (issue 24).
   */
  const readableApp = async (slug: string, auth: AuthContext | null) => {
    const target = await findTarget(slug);
    if (target.app.owner_id === auth?.user.id) return target;
    if (target.app.visibility === 'private' || target.app.status !== 'live') throw new AppError('not_found', 'Application not found');
    return target;
  };

  /** The app for a caller's own data: a key or token is needed. */
  const callableApp = async (slug: string, auth: AuthContext | null): Promise<{ app: AppRow; auth: AuthContext }> => {
    if (!auth) throw new AppError('unauthorized', 'Authentication credentials were not provided: send Authorization: Bearer <API key>');
    const { app } = await readableApp(slug, auth);
    return { app, auth };
  };

  const workflowInfo = async (app: AppRow) => (await workflows.readConfig(app)).app_info;

  const conversationOf = (row: ConversationListRow) => ({
    id: row.id,
    name: row.name ?? (row.first_query ? row.first_query.slice(0, GENERATED_NAME_LENGTH) : DEFAULT_NAME),
    inputs: row.inputs ?? {},
    status: 'normal',
    introduction: '',
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
  });

  const ownConversation = async (app: AppRow, auth: AuthContext, id: string) => {
    const row = UUID.test(id) ? await selectOwnConversation(db, id, app.id, auth.user.id) : null;
    if (!row) throw new AppError('not_found', 'Conversation Not Exists.');
    return row;
  };

  return {
    async parameters(slug: string, auth: AuthContext | null) {
      const { app, config } = await readableApp(slug, auth);
      if (app.type === 'prompt') {
        const version = config!.active_version;
        return parametersAnswer(inputFormFromSchema(version.input_schema as IoSchema, version.prompt_template), { imagesOnly: true });
      }
      const info = await workflowInfo(app);
      return parametersAnswer((info?.user_input_form ?? []) as InputFormEntry[], { imagesOnly: false });
    },

    async info(slug: string, auth: AuthContext | null) {
      const { app } = await readableApp(slug, auth);
      const mode = app.type === 'prompt' ? app.interaction_mode : ((await workflowInfo(app))?.mode ?? 'workflow');
      return { name: app.name, description: app.description, tags: [], mode, author_name: app.creator_name };
    },

    async meta(slug: string, auth: AuthContext | null) {
      await readableApp(slug, auth);
      return { tool_icons: {} };
    },

    async site(slug: string, auth: AuthContext | null) {
      const { app } = await readableApp(slug, auth);
      return {
        title: app.name,
        chat_color_theme: null,
        chat_color_theme_inverted: false,
        icon_type: null,
        icon: null,
        icon_background: null,
        icon_url: null,
        description: app.description,
        copyright: null,
        privacy_policy: null,
        custom_disclaimer: '',
        default_language: 'en-US',
        show_workflow_steps: false,
        use_icon_as_answer_icon: false,
      };
    },

    /** Whether the app answers chat-messages (prompt: its interaction mode; workflow: its provider's mode). */
    async isChatApp(app: AppRow) {
      if (app.type === 'prompt') return app.interaction_mode === 'chat';
      return isChatMode((await workflowInfo(app))?.mode ?? '');
    },

    async workflowMode(slug: string, auth: AuthContext | null) {
      const { app } = await callableApp(slug, auth);
      return app.type === 'workflow' ? ((await workflowInfo(app))?.mode ?? null) : null;
    },

    callableApp,

    /** GET /workflows/run/{id}: one of the caller's runs of a workflow app. */
    async workflowRun(slug: string, auth: AuthContext | null, runId: string) {
      const { app, auth: caller } = await callableApp(slug, auth);
      const row = UUID.test(runId) ? await selectOwnWorkflowRun(db, app.id, caller.user.id, runId) : null;
      if (!row) throw new AppError('not_found', 'Workflow run not found', 'workflow_run_id');
      return { ...runOf(row, slug), inputs: '{}', outputs: null };
    },

    /** GET /workflows/logs: the caller's runs of the app, newest first, Dify's page and limit. */
    async workflowLogs(
      slug: string,
      auth: AuthContext | null,
      query: { keyword?: string; status?: 'succeeded' | 'failed' | 'stopped'; page: number; limit: number },
    ) {
      const { app, auth: caller } = await callableApp(slug, auth);
      const status = query.status === undefined ? null : query.status === 'succeeded' ? 'success' : 'error';
      const { rows, total } = await selectWorkflowRuns(db, {
        appId: app.id,
        callerId: caller.user.id,
        status,
        keyword: query.keyword || null,
        offset: (query.page - 1) * query.limit,
        limit: query.limit,
      });
      return {
        page: query.page,
        limit: query.limit,
        total,
        has_more: query.page * query.limit < total,
        data: rows.map((row) => {
          const run = runOf(row, slug);
          return {
            id: row.id,
            workflow_run: { ...run, version: 'published' },
            created_from: 'service-api',
            created_by_role: 'end_user',
            created_by_account: null,
            created_by_end_user: { id: row.end_user, type: 'service_api', is_anonymous: false, session_id: row.end_user },
            created_at: run.created_at,
          };
        }),
      };
    },

    async listConversations(slug: string, auth: AuthContext | null, query: { user?: string; last_id?: string; first_id?: string; limit?: number }) {
      const { app, auth: caller } = await callableApp(slug, auth);
      const limit = query.limit ?? 20;
      const lastId = query.last_id || query.first_id || null;
      if (lastId && !UUID.test(lastId)) throw invalidParam('last_id', 'must be a conversation id');
      if (lastId) await ownConversation(app, caller, lastId);
      const rows = await selectConversations(db, { appId: app.id, callerId: caller.user.id, endUser: query.user || null, lastId, limit: limit + 1 });
      return { limit, has_more: rows.length > limit, data: rows.slice(0, limit).map(conversationOf) };
    },

    async renameConversation(slug: string, auth: AuthContext | null, id: string, body: { name?: string | null; auto_generate?: boolean | null }) {
      const { app, auth: caller } = await callableApp(slug, auth);
      const row = await ownConversation(app, caller, id);
      let name: string;
      if (body.auto_generate) name = (row.first_query ?? '').trim().slice(0, GENERATED_NAME_LENGTH) || DEFAULT_NAME;
      else {
        name = (body.name ?? '').trim();
        if (!name) throw invalidParam('name', 'is required unless auto_generate is true');
      }
      await updateConversationName(db, row.id, name);
      return conversationOf({ ...row, name });
    },

    async deleteConversation(slug: string, auth: AuthContext | null, id: string) {
      const { app, auth: caller } = await callableApp(slug, auth);
      const row = await ownConversation(app, caller, id);
      await deleteConversation(db, row.id);
    },

    async listMessages(slug: string, auth: AuthContext | null, query: { conversation_id: string; first_id?: string; limit?: number }) {
      const { app, auth: caller } = await callableApp(slug, auth);
      const conversation = await ownConversation(app, caller, query.conversation_id);
      const limit = query.limit ?? 20;
      const firstId = query.first_id || null;
      if (firstId && !UUID.test(firstId)) throw invalidParam('first_id', 'must be a message id');
      const rows = await selectMessages(db, conversation.id, firstId, limit + 1);
      const page = rows.slice(0, limit).reverse();
      return {
        limit,
        has_more: rows.length > limit,
        data: page.map((row) => ({
          id: row.id,
          conversation_id: row.conversation_id,
          inputs: row.inputs ?? {},
          query: row.query ?? '',
          answer: row.answer,
          message_files: [],
          feedback: row.rating ? { rating: row.rating } : null,
          retriever_resources: [],
          created_at: seconds(row.created_at),
        })),
      };
    },

    async feedback(slug: string, auth: AuthContext | null, messageId: string, body: { rating?: 'like' | 'dislike' | null; content?: string | null }) {
      const { app, auth: caller } = await callableApp(slug, auth);
      if (!UUID.test(messageId) || !(await selectOwnMessage(db, messageId, app.id, caller.user.id))) throw new AppError('not_found', 'Message Not Exists.');
      await upsertFeedback(db, { messageId, appId: app.id, callerId: caller.user.id, rating: body.rating ?? null, content: body.content ?? '' });
      return { result: 'success' };
    },

    async suggested(slug: string, auth: AuthContext | null, messageId: string) {
      const { app, auth: caller } = await callableApp(slug, auth);
      if (!UUID.test(messageId) || !(await selectOwnMessage(db, messageId, app.id, caller.user.id))) throw new AppError('not_found', 'Message Not Exists.');
      // Suggested follow-up questions are off for every Tollbooth app (parameters says so).
      return { result: 'success', data: [] as string[] };
    },
  };
}

export type DifyApiService = ReturnType<typeof createDifyApiService>;
