// A fake of the paid call endpoints (and the owner's prompt config) on top of the fake apps server:
// blocking JSON answers, Server-Sent Events split at awkward places with ping frames in between, and
// {code, message, status} errors, so the console is tested against the real wire format.
import type { Application, CatalogAppDetail, IoSchema, PromptConfig } from '@tollbooth/contract';
import { fakeAppsServer } from '@/testing/fake-apps-server';
import { jsonResponse } from '@/testing/test-utils';

export interface RecordedCall {
  slug: string;
  action: 'completion-messages' | 'chat-messages';
  body: Record<string, unknown>;
  authorization: string | null;
}

export const FAKE_CREATED_AT = 1_717_243_200; // 2024-06-01T12:00:00Z
export const FAKE_USAGE = { input_tokens: 12, output_tokens: 34, prompt_tokens: 12, completion_tokens: 34, total_tokens: 46, latency: 0.25 };

interface FakeGatewayOptions {
  apps?: Application[];
  /** Input schemas the owner can read, by slug. */
  inputSchemas?: Record<string, IoSchema>;
  /** Public pages of the catalog (GET /api/catalog/{slug}), by slug, also answering GET /api/app/{slug}/inputs (public or embed apps); any other slug is 404. */
  catalog?: Record<string, CatalogAppDetail>;
  /** Answer a Response to replace the fake's answer for one call. */
  answerCall?: (call: RecordedCall) => Response | undefined;
}

export function makePromptConfig(inputSchema: IoSchema): PromptConfig {
  return {
    model: 'gpt-4-turbo',
    key_source: 'platform',
    temperature: 0.7,
    max_tokens: 1000,
    top_p: 1,
    frequency_penalty: 0,
    presence_penalty: 0,
    system_prompt: '',
    active_version: {
      version: 1,
      system_prompt: '',
      prompt_template: '{{query}}',
      input_schema: inputSchema,
      output_schema: null,
      changelog: 'Initial version',
      created_at: '2024-05-01T10:00:00.000Z',
    },
  };
}

/** A text/event-stream Response whose bytes arrive in the given pieces. */
export function sseResponse(pieces: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream; charset=utf-8' } });
}

const frame = (event: object) => `data: ${JSON.stringify(event)}\n\n`;

/** Splits a string into pieces of `size` characters, so frames straddle chunk boundaries. */
function slices(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

export function fakeGatewayServer({ apps = [], inputSchemas = {}, catalog = {}, answerCall }: FakeGatewayOptions = {}) {
  const gatewayCalls: RecordedCall[] = [];
  let conversations = 0;
  let messages = 0;

  const server = fakeAppsServer({
    apps,
    override: (url, init) => {
      // The inputs of a callable app (GET /api/app/{slug}/inputs): the catalog page's, for a public or embed app.
      const inputsPage = /^\/api\/app\/([^/]+)\/inputs$/.exec(url.pathname);
      if (inputsPage) {
        const page = catalog[decodeURIComponent(inputsPage[1] as string)];
        return page
          ? jsonResponse({ mode: page.mode, fields: page.fields, text_input: page.text_input, demo_model: page.demo_model })
          : jsonResponse({ code: 'not_found', message: 'Application not found', status: 404 }, 404);
      }
      // Download App for anyone who may call the app (issue 25): a callable app's zip.
      const download = /^\/api\/app\/([^/]+)\/download-frontend$/.exec(url.pathname);
      if (download) {
        const slug = decodeURIComponent(download[1] as string);
        const callable = apps.find((app) => app.slug === slug && (app.is_owner || (app.status === 'live' && app.visibility !== 'private')));
        return callable
          ? new Response(new Blob(['zip']), {
              headers: { 'Content-Type': 'application/zip', 'Content-Disposition': `attachment; filename="${slug}-${url.searchParams.get('type')}-app.zip"` },
            })
          : jsonResponse({ code: 'not_found', message: 'Application not found', status: 404 }, 404);
      }
      const publicPage = /^\/api\/catalog\/([^/]+)$/.exec(url.pathname);
      if (publicPage) {
        const page = catalog[decodeURIComponent(publicPage[1] as string)];
        return page ? jsonResponse(page) : jsonResponse({ code: 'not_found', message: 'Application not found', status: 404 }, 404);
      }
      const prompt = /^\/api\/app\/([^/]+)\/prompt\/$/.exec(url.pathname);
      if (prompt) {
        const schema = inputSchemas[decodeURIComponent(prompt[1] as string)];
        return schema ? jsonResponse(makePromptConfig(schema)) : jsonResponse({ code: 'not_found', message: 'Application not found', status: 404 }, 404);
      }
      const match = /^\/api\/app\/([^/]+)\/(completion-messages|chat-messages)$/.exec(url.pathname);
      if (!match) return undefined;
      const call: RecordedCall = {
        slug: decodeURIComponent(match[1] as string),
        action: match[2] as RecordedCall['action'],
        body: JSON.parse(String(init?.body)) as Record<string, unknown>,
        authorization: new Headers(init?.headers).get('Authorization'),
      };
      gatewayCalls.push(call);
      const replaced = answerCall?.(call);
      if (replaced) return replaced;
      if (!call.authorization) {
        return jsonResponse(
          { code: 'unauthorized', message: 'Authentication credentials were not provided: send Authorization: Bearer <API key>', status: 401 },
          401,
        );
      }

      const chat = call.action === 'chat-messages';
      const question = chat ? String(call.body.query) : String((call.body.inputs as Record<string, unknown>).query);
      const answer = `You said: ${question}`;
      messages += 1;
      const id = `msg-${messages}`;
      const conversationId = chat ? String(call.body.conversation_id ?? `conv-${++conversations}`) : '';
      const common = { task_id: `task-${messages}`, message_id: id, conversation_id: conversationId };

      if (call.body.response_mode === 'streaming') {
        const words = answer.split(/(?= )/);
        const text = [
          ...words.map(
            (word, index) => (index === 1 ? 'event: ping\n\n' : '') + frame({ event: 'message', ...common, answer: word, created_at: FAKE_CREATED_AT }),
          ),
          frame({ event: 'message_end', ...common, id, metadata: { usage: FAKE_USAGE, retriever_resources: [] } }),
        ].join('');
        return sseResponse(slices(text, 7));
      }
      return jsonResponse({
        event: 'message',
        ...common,
        id,
        mode: chat ? 'chat' : 'completion',
        answer,
        metadata: { usage: FAKE_USAGE },
        created_at: FAKE_CREATED_AT,
      });
    },
  });

  return { ...server, gatewayCalls };
}
