import { describe, expect, it } from 'vitest';
import { readServerSentEvents, type ServerSentEvent } from './sse.ts';

function bodyOf(pieces: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
      controller.close();
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(body)) events.push(event);
  return events;
}

describe('readServerSentEvents', () => {
  it('reads named events and data, skipping comments', async () => {
    const events = await readAll(bodyOf([': keep-alive\n\nevent: ping\ndata: {"type":"ping"}\n\ndata: one\ndata: two\n\n']));
    expect(events).toEqual([
      { event: 'ping', data: '{"type":"ping"}' },
      { event: 'message', data: 'one\ntwo' },
    ]);
  });

  it('accepts CRLF and CR line endings, even with CRLF split across chunks', async () => {
    const events = await readAll(bodyOf(['data: a\r', '\n\r\ndata: b\r\rdata:c\r\n', '\r\n']));
    expect(events).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
      { event: 'message', data: 'c' },
    ]);
  });

  it('keeps a multi-byte character split across chunks intact', async () => {
    const bytes = new TextEncoder().encode('data: Köln 🚀\n\n');
    const events = await readAll(bodyOf([bytes.slice(0, 8), bytes.slice(8, 13), bytes.slice(13)]));
    expect(events).toEqual([{ event: 'message', data: 'Köln 🚀' }]);
  });

  it('delivers a last event that lacks its blank line', async () => {
    expect(await readAll(bodyOf(['data: [DONE]']))).toEqual([{ event: 'message', data: '[DONE]' }]);
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: 1\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readServerSentEvents(body)) {
      expect(event.data).toBe('1');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
