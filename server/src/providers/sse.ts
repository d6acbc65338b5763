// A Server-Sent Events reader for upstream model streams (the WHATWG event-stream format: lines
// ending in LF, CRLF or CR; "event:" and "data:" fields; a blank line ends an event; lines starting
// with ":" are comments). Stopping the iteration early cancels the body.

export interface ServerSentEvent {
  /** The "event:" field, or 'message' when there was none. */
  event: string;
  /** The "data:" lines joined with LF. */
  data: string;
}

export interface ReadServerSentEventsOptions {
  /**
   * Recognises the stream's end marker (OpenAI's [DONE], Anthropic's message_stop). After it the
   * rest of the body is read and dropped for a moment instead of cancelled, because a body read to
   * its end leaves the keep-alive connection reusable while a cancelled one is destroyed.
   */
  isEnd?: (event: ServerSentEvent) => boolean;
  /** How long to wait for the body's end after the end marker. */
  drainMs?: number;
}

export async function* readServerSentEvents(body: ReadableStream<Uint8Array>, options: ReadServerSentEventsOptions = {}): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let eventName = '';
  let dataLines: string[] = [];
  let sawField = false;
  let done = false;

  const takeEvent = (): ServerSentEvent | null => {
    const event = sawField && dataLines.length > 0 ? { event: eventName || 'message', data: dataLines.join('\n') } : null;
    eventName = '';
    dataLines = [];
    sawField = false;
    return event;
  };

  const takeLine = (line: string): ServerSentEvent | null => {
    if (line === '') return takeEvent();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    sawField = true;
    if (field === 'data') dataLines.push(value);
    else if (field === 'event') eventName = value;
    return null;
  };

  try {
    while (true) {
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        buffer += decoder.decode();
      } else {
        buffer += decoder.decode(chunk.value, { stream: true });
      }
      let start = 0;
      for (let index = 0; index < buffer.length; index++) {
        const char = buffer[index];
        if (char !== '\n' && char !== '\r') continue;
        // A CR at the very end of the buffer may be the first half of a CRLF split across chunks.
        if (char === '\r' && index === buffer.length - 1 && !done) break;
        const line = buffer.slice(start, index);
        if (char === '\r' && buffer[index + 1] === '\n') index++;
        start = index + 1;
        const event = takeLine(line);
        if (event) {
          yield event;
          if (options.isEnd?.(event)) {
            done = await drain(reader, options.drainMs ?? 250);
            return;
          }
        }
      }
      buffer = buffer.slice(start);
      if (done) {
        // Be lenient with a server that does not end its last event with a blank line.
        if (buffer !== '') takeLine(buffer);
        const event = takeEvent();
        if (event) yield event;
        return;
      }
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Reads the body to its end, giving up after ms; true when the end was reached. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    while (true) {
      const chunk = await Promise.race([reader.read(), giveUp]);
      if (chunk === 'timeout') return false;
      if (chunk.done) return true;
    }
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
