// A loopback fake of the Gemini API: POST /v1beta/models/{model}:generateContent and
// :streamGenerateContent?alt=sse (each SSE event a GenerateContentResponse; the last has the
// finishReason and the full usageMetadata; no end marker). The key goes in x-goog-api-key.
import type { FakeExchange, FakeProviderServer, StreamFrame } from './http-fake.ts';
import { exampleFromSchema, header, sendEventStream, sendJson, sendMalformedJson, startFakeServer } from './http-fake.ts';

export interface GeminiFakeOptions {
  /** When set, requests without "x-goog-api-key: <apiKey>" (or ?key=) get Gemini's 400. */
  apiKey?: string;
}

/** baseUrl is the origin, like https://generativelanguage.googleapis.com. */
export function startGeminiFake(options: GeminiFakeOptions = {}): Promise<FakeProviderServer> {
  return startFakeServer((exchange) => answer(exchange, options));
}

const PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

function answer(exchange: FakeExchange, options: GeminiFakeOptions): Promise<void> | void {
  const { request, behaviour, res } = exchange;
  const match = request.method === 'POST' ? PATH.exec(request.path) : null;
  if (!match) return sendJson(res, 404, geminiError(404, 'NOT_FOUND', `Unknown path ${request.path}`));
  const [, model, method] = match;
  if (options.apiKey !== undefined && (header(request, 'x-goog-api-key') ?? request.query.key) !== options.apiKey) {
    return sendJson(res, 400, geminiError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.'));
  }
  const body = (request.body ?? {}) as {
    contents?: unknown;
    tools?: { functionDeclarations?: { name?: string; parametersJsonSchema?: object; parameters?: object }[] }[];
    toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
  };
  if (!Array.isArray(body.contents))
    return sendJson(res, 400, geminiError(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified'));
  if (behaviour.status !== 200) return sendJson(res, behaviour.status, geminiError(behaviour.status, 'INTERNAL', behaviour.errorMessage));
  const usage = exchange.usage ?? { inputTokens: 0, outputTokens: 0 };
  const usageMetadata = (outputTokens: number) => ({
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: outputTokens,
    totalTokenCount: usage.inputTokens + outputTokens,
  });
  const response = (text: string, finishReason: string | null, outputTokens: number) => ({
    candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    usageMetadata: usageMetadata(outputTokens),
    modelVersion: decodeURIComponent(model ?? ''),
    responseId: 'fake-response',
  });

  // Gemini calls a declared function unless it is answering a function's response or told not to.
  const declarations = body.tools?.flatMap((tool) => tool.functionDeclarations ?? []) ?? [];
  const lastParts = (Array.isArray(body.contents) ? (body.contents.at(-1) as { parts?: Record<string, unknown>[] } | undefined) : undefined)?.parts ?? [];
  const calling = body.toolConfig?.functionCallingConfig;
  const declaration =
    behaviour.callTools && declarations.length > 0 && calling?.mode !== 'NONE' && !lastParts.some((part) => part.functionResponse)
      ? (declarations.find((candidate) => calling?.allowedFunctionNames?.includes(candidate.name ?? '')) ?? declarations[0]!)
      : null;
  if (declaration) {
    const functionCall = { name: declaration.name ?? 'tool', args: exampleFromSchema(declaration.parametersJsonSchema ?? declaration.parameters ?? {}) };
    const called = {
      candidates: [{ content: { parts: [{ functionCall }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: usageMetadata(usage.outputTokens),
      modelVersion: decodeURIComponent(model ?? ''),
      responseId: 'fake-response',
    };
    if (method === 'generateContent') return sendJson(res, 200, called);
    return sendEventStream(exchange, [{ frame: `data: ${JSON.stringify(called)}\r\n\r\n`, text: true }]);
  }

  if (method === 'generateContent') {
    if (behaviour.malformed) return sendMalformedJson(res);
    return sendJson(res, 200, response(exchange.text, 'STOP', usage.outputTokens));
  }
  if (request.query.alt !== 'sse') return sendJson(res, 400, geminiError(400, 'INVALID_ARGUMENT', 'The fake only streams with alt=sse'));

  // The real API separates events with CRLF CRLF.
  const frames: StreamFrame[] = [];
  if (behaviour.malformed) frames.push({ frame: 'data: {"candidates": [oops\r\n\r\n' });
  const chunks = behaviour.chunks(exchange.text);
  chunks.forEach((text, index) => {
    const last = index === chunks.length - 1;
    const outputTokens = last ? usage.outputTokens : Math.floor((usage.outputTokens * (index + 1)) / chunks.length);
    frames.push({ frame: `data: ${JSON.stringify(response(text, last ? 'STOP' : null, outputTokens))}\r\n\r\n`, text: true });
  });
  return sendEventStream(exchange, frames);
}

function geminiError(code: number, status: string, message: string) {
  return { error: { code, message, status } };
}
