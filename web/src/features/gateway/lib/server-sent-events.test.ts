import { describe, expect, it } from 'vitest';
import { parseServerSentEvent, readServerSentEvents, type ServerSentEvent } from './server-sent-events';

function streamOf(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function collect(pieces: string[]): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(streamOf(pieces))) events.push(event);
  return events;
}

describe('parseServerSentEvent', () => {
  it('reads the event and data fields, joining data lines and dropping one leading space', () => {
    expect(parseServerSentEvent('event: ping')).toEqual({ event: 'ping', data: '' });
    expect(parseServerSentEvent('data: {"a":1}')).toEqual({ event: undefined, data: '{"a":1}' });
    expect(parseServerSentEvent('data:one\ndata:  two')).toEqual({ event: undefined, data: 'one\n two' });
  });

  it('ignores comments and unknown fields', () => {
    expect(parseServerSentEvent(': keep-alive')).toBeNull();
    expect(parseServerSentEvent('id: 7\nretry: 100')).toBeNull();
  });
});

describe('readServerSentEvents', () => {
  it('puts frames split across chunks back together, with LF or CRLF line ends', async () => {
    const text = 'data: {"event":"message","answer":"Hel"}\n\nevent: ping\n\ndata: {"event":"message","answer":"lo"}\r\n\r\ndata: {"event":"message_end"}\n\n';
    const pieces = text.match(/[\s\S]{1,5}/g) ?? [];
    expect(await collect(pieces)).toEqual([
      { event: undefined, data: '{"event":"message","answer":"Hel"}' },
      { event: 'ping', data: '' },
      { event: undefined, data: '{"event":"message","answer":"lo"}' },
      { event: undefined, data: '{"event":"message_end"}' },
    ]);
  });

  it('keeps a last frame without its closing blank line, and multi-byte characters split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo 🦉');
    const reader = readServerSentEvents(
      new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.slice(0, 8));
          controller.enqueue(bytes.slice(8));
          controller.close();
        },
      }),
    );
    const events: ServerSentEvent[] = [];
    for await (const event of reader) events.push(event);
    expect(events).toEqual([{ event: undefined, data: 'héllo 🦉' }]);
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encoder.encode('data: x\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readServerSentEvents(body)) {
      expect(event.data).toBe('x');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
