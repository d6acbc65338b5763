// What the widget needs that can be tested without a page: its settings' shape and the reading of
// the call's Server-Sent Events.

/** One input of the app, as the page's settings give it (the catalog's form fields). */
export interface EmbedField {
  name: string;
  label: string;
  control: 'text' | 'paragraph' | 'number' | 'integer' | 'boolean' | 'select' | 'json';
  required: boolean;
  options?: (string | number | boolean)[];
}

/** The JSON block the server writes into /embed/{slug} (server/src/embed/widget-page.ts). */
export interface WidgetSettings {
  slug: string;
  name: string;
  description: string;
  priceCents: number;
  /** The price in words, from the app's rate card (absent from a page rendered before it). */
  price?: string;
  mode: 'completion' | 'chat';
  fields: EmbedField[];
  textInput: string | null;
  key: string;
  token: string;
  theme: 'light' | 'dark';
}

export interface AnswerEvent {
  event: string;
  answer?: string;
  conversation_id?: string;
  message?: string;
}

/** Calls `onEvent` with every `data:` JSON event of an SSE body, in order, across chunk boundaries. */
export async function readStream(body: ReadableStream<Uint8Array>, onEvent: (event: AnswerEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const flush = (final: boolean) => {
    const blocks = buffered.split('\n\n');
    buffered = final ? '' : (blocks.pop() ?? '');
    for (const block of blocks) {
      for (const line of block.split('\n')) {
        if (!line.startsWith('data:')) continue;
        try {
          onEvent(JSON.parse(line.slice(5)) as AnswerEvent);
        } catch {
          // Not an event of ours (a comment or a keep-alive): skip it.
        }
      }
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    flush(false);
  }
  buffered += decoder.decode();
  flush(true);
}
