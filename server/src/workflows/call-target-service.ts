// How the gateway calls a workflow app: the one seam between the paid gateway and the workflow
// providers. prepare() runs every check that can run before money moves (the app's input form,
// the conversation and its turn limit, files uploaded to the provider), and hands the gateway an
// upstream that speaks the gateway's model-provider interface, so charging, settlement, streaming
// and recording are exactly the prompt apps' path. The upstream aborts the provider's request
// when the caller goes away (and the provider stops the task), bounds it by the app's timeout,
// yields the provider's other stream events (agent thoughts, workflow nodes, files…) in order with
// the text, each saying whether it carries part of the answer, and remembers the provider's
// conversation id once an answer succeeded.
import { createHmac, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AppRow } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import type { Database } from '../db/client.ts';
import { checkAppMode } from '../platform/call-rules.ts';
import type { Config } from '../platform/config.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import type { CallerSignal } from '../providers/abort-hook.ts';
import type { ModelProvider, ModelStreamEvent } from '../providers/types.ts';
import { isChatMode } from '../providers/workflows/dify.ts';
import type { InputFormEntry, WorkflowAppInfo, WorkflowCallRequest } from '../providers/workflows/types.ts';
import { insertConversation, recordConversationTurn, selectConversation } from './queries.ts';
import type { WorkflowsService } from './service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_QUERY_LENGTH = 100_000;

export interface WorkflowCallBody {
  inputs?: Record<string, unknown>;
  query?: string;
  conversation_id?: string | null;
  files?: { type?: string; transfer_method?: string; upload_file_id?: string; url?: string }[] | null;
}

export interface PreparedWorkflowCall {
  /** Speaks the gateway's model-provider interface; the gateway's request fields other than signal are ignored. */
  provider: ModelProvider;
  /** The Tollbooth conversation id (chat apps), known before the call so streams carry it from the first event. */
  conversationId: string | null;
  query: string | null;
  /** False when the app's logging is off: the turn's query and answer are not kept. */
  keepTurn: boolean;
}

/** Checks a call's inputs against the provider's input form; throws 400 naming the field. */
export function checkInputsAgainstForm(form: InputFormEntry[], inputs: Record<string, unknown>): Record<string, unknown> {
  const checked: Record<string, unknown> = { ...inputs };
  for (const entry of form) {
    const [kind, field] = Object.entries(entry)[0] ?? [];
    if (!kind || !field) continue;
    const name = field.variable;
    const path = `inputs.${name}`;
    let value = checked[name];
    if ((value === undefined || value === null || value === '') && field.default !== undefined && field.default !== '') {
      value = field.default;
      checked[name] = value;
    }
    if (value === undefined || value === null || value === '') {
      if (field.required) throw invalidParam(path, `is required (${field.label ?? name})`);
      continue;
    }
    switch (kind) {
      case 'text-input':
      case 'paragraph':
        if (typeof value !== 'string') throw invalidParam(path, 'must be a string');
        if (typeof field.max_length === 'number' && field.max_length > 0 && value.length > field.max_length)
          throw invalidParam(path, `must be at most ${field.max_length} characters`);
        break;
      case 'select':
        if (typeof value !== 'string') throw invalidParam(path, 'must be a string');
        if (Array.isArray(field.options) && field.options.length > 0 && !field.options.includes(value))
          throw invalidParam(path, `must be one of ${field.options.join(', ')}`);
        break;
      case 'number':
        if (typeof value === 'string' ? value.trim() === '' || Number.isNaN(Number(value)) : typeof value !== 'number')
          throw invalidParam(path, 'must be a number');
        break;
      default:
        break;
    }
  }
  return checked;
}

export function createWorkflowCallTarget({ db, config, workflows }: { db: Database; config: Config; workflows: WorkflowsService }) {
  /** The provider's `user`: stable per caller and end user, and not their account id. */
  const upstreamUser = (callerId: string, endUser: string) =>
    `tb-${createHmac('sha256', config.secretKey).update(`workflow-user:${callerId}:${endUser}`).digest('hex').slice(0, 32)}`;

  return {
    async prepare({
      app,
      mode,
      auth,
      body,
      endUser,
      hop,
    }: {
      app: AppRow;
      mode: 'completion' | 'chat';
      auth: AuthContext;
      body: WorkflowCallBody;
      endUser: string;
      /** The Tollbooth-Hop header of the caller's request, sent on every request to the provider (http/call-chain.ts). */
      hop: string;
    }): Promise<PreparedWorkflowCall> {
      const call = await workflows.readCallConfig(app.id);
      // Never checked for these settings: ask now, before any money moves.
      const appInfo: WorkflowAppInfo =
        call.appInfo ?? (await workflows.refreshAppInfo(app.id, call, AbortSignal.timeout(Math.min(call.timeoutMs, 20_000)), hop));
      const chatApp = isChatMode(appInfo.mode);
      // As Dify does: chat-messages only on chat apps, completion-messages only on the others.
      checkAppMode(chatApp, mode);
      let query = typeof body.query === 'string' ? body.query : null;
      if (query !== null && query.length > MAX_QUERY_LENGTH) throw invalidParam('query', `must be at most ${MAX_QUERY_LENGTH} characters`);
      const rawInputs: Record<string, unknown> = { ...(body.inputs ?? {}) };
      if (chatApp) {
        // A completion-style call to a chat app may carry its message as inputs.query.
        if ((query === null || query.trim() === '') && typeof rawInputs.query === 'string' && mode === 'completion') query = rawInputs.query;
        if (query === null || query.trim() === '') throw invalidParam('query', 'is required');
      } else if (query !== null && rawInputs.query === undefined) {
        const formHasQuery = appInfo.user_input_form.some((entry) => Object.values(entry)[0]?.variable === 'query');
        if (formHasQuery) rawInputs.query = query;
      }
      const inputs = checkInputsAgainstForm(appInfo.user_input_form, rawInputs);

      // Conversations: only chat apps called as chat; another caller's conversation does not exist.
      let conversationId: string | null = null;
      let upstreamConversationId: string | null = null;
      let conversationUser = endUser;
      let isNewConversation = false;
      if (chatApp && mode === 'chat') {
        if (body.conversation_id) {
          if (!UUID.test(body.conversation_id)) throw invalidParam('conversation_id', 'must be a UUID');
          const conversation = await selectConversation(db, body.conversation_id);
          if (!conversation || conversation.app_id !== app.id || conversation.caller_id !== auth.user.id) {
            throw new AppError('not_found', 'Conversation Not Exists.', 'conversation_id');
          }
          if (conversation.turns >= call.maxIterations) {
            throw invalidParam('conversation_id', `this conversation reached the app's limit of ${call.maxIterations} turns; start a new one`);
          }
          conversationId = conversation.id;
          upstreamConversationId = conversation.upstream_conversation_id;
          conversationUser = conversation.end_user;
        } else {
          conversationId = randomUUID();
          isNewConversation = true;
        }
      } else if (body.conversation_id && !UUID.test(body.conversation_id)) {
        throw invalidParam('conversation_id', 'must be a UUID');
      }
      const user = upstreamUser(auth.user.id, conversationUser);

      // Files: Tollbooth uploads are sent to the provider first; remote URLs are passed on.
      const files: WorkflowCallRequest['files'] = [];
      for (const [index, file] of (body.files ?? []).entries()) {
        const type = file.type ?? 'image';
        if (file.transfer_method === 'remote_url') {
          if (!file.url || !/^https?:\/\//i.test(file.url)) throw invalidParam(`files.${index}.url`, 'must be an http(s) URL');
          files.push({ type, transfer_method: 'remote_url', url: file.url });
          continue;
        }
        if (file.transfer_method !== 'local_file' || !file.upload_file_id || !UUID.test(file.upload_file_id)) {
          throw invalidParam(`files.${index}.upload_file_id`, 'must be the id of a file uploaded with POST /api/app/{slug}/file-upload/');
        }
        const { rows } = await db.query<{ name: string; mime_type: string; storage_path: string; user_id: string }>(
          'SELECT name, mime_type, storage_path, user_id FROM uploaded_files WHERE id = $1',
          [file.upload_file_id],
        );
        const stored = rows[0];
        if (!stored || stored.user_id !== auth.user.id) throw invalidParam(`files.${index}.upload_file_id`, 'no such uploaded file');
        const providerFileId = await call.provider.uploadFile(
          call.settings,
          { name: stored.name, mimeType: stored.mime_type, data: await readFile(stored.storage_path) },
          user,
          AbortSignal.timeout(call.timeoutMs),
          hop,
        );
        files.push({ type, transfer_method: 'local_file', upload_file_id: providerFileId });
      }

      if (isNewConversation && conversationId) {
        await insertConversation(db, { id: conversationId, appId: app.id, callerId: auth.user.id, endUser: conversationUser });
      }
      const request = (signal: CallerSignal, traceparent: string | undefined): WorkflowCallRequest => ({
        settings: call.settings,
        appMode: appInfo.mode,
        inputs,
        query,
        conversationId: upstreamConversationId,
        user,
        files,
        signal,
        timeoutMs: call.timeoutMs,
        hop,
        traceparent,
      });
      const answered = async (upstreamId: string | null) => {
        if (conversationId) await recordConversationTurn(db, conversationId, upstreamId);
      };
      const provider: ModelProvider = {
        name: call.provider.id,
        async complete({ signal, traceparent }) {
          const result = await call.provider.callBlocking(request(signal, traceparent));
          await answered(result.conversationId);
          return { text: result.answer, usage: result.usage };
        },
        // The provider stops its task upstream when the stream ends early (caller gone, deadline).
        async *stream({ signal, traceparent }): AsyncGenerator<ModelStreamEvent> {
          for await (const event of call.provider.callStreaming(request(signal, traceparent))) {
            if (event.type === 'delta') yield { type: 'delta', text: event.text };
            else if (event.type === 'event') yield { type: 'event', event: event.event, answer: event.answer };
            else if (event.type === 'done') {
              await answered(event.conversationId);
              yield { type: 'done', usage: event.usage };
            }
          }
        },
      };
      return { provider, conversationId, query, keepTurn: call.enableLogging };
    },
  };
}

export type WorkflowCallTarget = ReturnType<typeof createWorkflowCallTarget>;
