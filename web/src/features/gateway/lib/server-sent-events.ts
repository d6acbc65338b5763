// Reads a text/event-stream body frame by frame. fetch gives us the bytes; EventSource cannot be
// used because it only sends GET requests without an Authorization header.

export interface ServerSentEvent {
  /** The `event:` field; absent means the default type "message". */
  event: string | undefined;
  /** The `data:` lines joined with newlines; empty for frames without data (e.g. `event: ping`). */
  data: string;
}

/** Parses one frame (the lines between two blank lines); null for a comment-only frame. */
export function parseServerSentEvent(frame: string): ServerSentEvent | null {
  let event: string | undefined;
  const data: string[] = [];
  let hasField = false;
  for (const line of frame.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') {
      event = value;
      hasField = true;
    } else if (field === 'data') {
      data.push(value);
      hasField = true;
    }
  }
  return hasField ? { event, data: data.join('\n') } : null;
}

const FRAME_END = /\r\n\r\n|\n\n|\r\r/;

/** Yields the events of a stream as they arrive; a frame split across chunks is put back together. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let match = FRAME_END.exec(buffer);
      while (match) {
        const parsed = parseServerSentEvent(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
        if (parsed) yield parsed;
        match = FRAME_END.exec(buffer);
      }
      if (done) {
        finished = true;
        break;
      }
    }
    // A last frame without its closing blank line still counts.
    const last = parseServerSentEvent(buffer);
    if (last) yield last;
  } finally {
    // The reader stopped early (an error event, or the caller gave up): close the connection.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
