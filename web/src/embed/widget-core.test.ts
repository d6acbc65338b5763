import { describe, expect, it } from 'vitest';
import { type AnswerEvent, readStream } from './widget-core';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('readStream', () => {
  it('reads every data event in order, across chunk boundaries, skipping pings and comments', async () => {
    const events: AnswerEvent[] = [];
    await readStream(
      streamOf(
        'data: {"event":"message","answer":"Hel","conversation_id":"c1"}\n\nevent: ping\n\n',
        'data: {"event":"message","ans',
        'wer":"lo"}\n\n: keep-alive\n\ndata: {"event":"message_end"}',
      ),
      (event) => events.push(event),
    );
    expect(events).toEqual([{ event: 'message', answer: 'Hel', conversation_id: 'c1' }, { event: 'message', answer: 'lo' }, { event: 'message_end' }]);
  });

  it('passes an error event on', async () => {
    const events: AnswerEvent[] = [];
    await readStream(streamOf('data: {"event":"error","message":"This publishable key has reached its daily spend limit"}\n\n'), (event) => events.push(event));
    expect(events).toEqual([{ event: 'error', message: 'This publishable key has reached its daily spend limit' }]);
  });
});
