// The embed widget, inside its frame on /embed/{slug} (server/src/embed/). Plain DOM, no framework:
// it has its own small budget (web/build/embed-widget-plugin.ts, decision 0030). A chat for chat
// apps, a form from the input schema for the others; answers stream in as they come. The visitor
// is an anonymous id kept in the frame's own storage and sent as the call's `user`.
import { type AnswerEvent, type EmbedField, readStream, type WidgetSettings } from './widget-core';
import { WIDGET_CSS } from './widget-css';

const settings = JSON.parse(document.getElementById('tollbooth-embed')?.textContent ?? '{}') as WidgetSettings;

type Child = Node | string | null | false;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string | boolean> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

/** The visitor's anonymous id: in the frame's own storage (partitioned per host site), or for this page only when storage is blocked. */
function visitorId(): string {
  const fresh = `v_${Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  try {
    const stored = localStorage.getItem('tollbooth-visitor');
    if (stored) return stored;
    localStorage.setItem('tollbooth-visitor', fresh);
  } catch {
    // Storage refused (privacy settings): the id lasts as long as the page.
  }
  return fresh;
}

const visitor = visitorId();
const price = settings.price ?? (settings.priceCents === 0 ? 'Free' : `$${(settings.priceCents / 100).toFixed(2)} per answer`);
let conversationId = '';

/** Sends one call and feeds the answer to `onText` as it streams; resolves with the error message, or null. */
async function send(body: { inputs: Record<string, unknown>; query?: string }, onText: (text: string) => void): Promise<string | null> {
  let response: Response;
  try {
    response = await fetch(`/api/embed/${encodeURIComponent(settings.slug)}/${settings.mode}-messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${settings.key}`, 'content-type': 'application/json', 'x-embed-token': settings.token },
      body: JSON.stringify({ ...body, user: visitor, response_mode: 'streaming', ...(settings.mode === 'chat' ? { conversation_id: conversationId } : {}) }),
    });
  } catch {
    return 'Could not reach the service. Check your connection and try again.';
  }
  if (!response.ok || !response.body) {
    const error = (await response.json().catch(() => null)) as { message?: string } | null;
    return error?.message ?? `The call failed (${response.status}).`;
  }
  let failure: string | null = null;
  await readStream(response.body, (event: AnswerEvent) => {
    if (event.conversation_id) conversationId = event.conversation_id;
    if (event.event === 'message' && event.answer) onText(event.answer);
    if (event.event === 'error') failure = event.message ?? 'The answer failed.';
  });
  return failure;
}

function fieldControl(field: EmbedField): HTMLElement {
  const common = { id: `f-${field.name}`, name: field.name, required: field.required };
  if (field.control === 'paragraph' || field.control === 'json') return h('textarea', { ...common, rows: '3' });
  if (field.control === 'boolean') return h('input', { ...common, type: 'checkbox', required: false });
  if (field.control === 'select') {
    return h('select', common, ...(field.options ?? []).map((option) => h('option', { value: String(option) }, String(option))));
  }
  const numeric = field.control === 'number' || field.control === 'integer';
  return h('input', { ...common, type: numeric ? 'number' : 'text', ...(field.control === 'integer' ? { step: '1' } : {}) });
}

function readInputs(form: HTMLFormElement, fields: EmbedField[]): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const field of fields) {
    const element = form.elements.namedItem(field.name) as HTMLInputElement | null;
    if (!element) continue;
    if (field.control === 'boolean') inputs[field.name] = element.checked;
    else if (element.value === '') continue;
    else if (field.control === 'number' || field.control === 'integer') inputs[field.name] = Number(element.value);
    else if (field.control === 'json') {
      try {
        inputs[field.name] = JSON.parse(element.value);
      } catch {
        inputs[field.name] = element.value;
      }
    } else inputs[field.name] = element.value;
  }
  return inputs;
}

const fieldRows = (fields: EmbedField[]) =>
  fields.map((field) =>
    h(
      'label',
      { class: field.control === 'boolean' ? 'field check' : 'field', for: `f-${field.name}` },
      h('span', {}, field.label || field.name),
      fieldControl(field),
    ),
  );

function chat(root: HTMLElement) {
  const extraFields = settings.fields.filter((field) => field.name !== 'query');
  const log = h('div', { class: 'log', role: 'log', 'aria-live': 'polite' }, h('p', { class: 'hint' }, settings.description || 'Ask anything.'));
  const box = h('textarea', { name: 'query', rows: '1', placeholder: 'Type a message…', 'aria-label': 'Message', required: true });
  const button = h('button', { type: 'submit' }, 'Send');
  const form = h(
    'form',
    { class: 'composer' },
    ...(extraFields.length > 0 ? [h('details', {}, h('summary', {}, 'Options'), ...fieldRows(extraFields))] : []),
    box,
    button,
  );
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const query = box.value.trim();
    if (!query || button.disabled) return;
    log.querySelector('.hint')?.remove();
    log.append(h('div', { class: 'bubble user' }, query));
    const answer = h('div', { class: 'bubble bot', 'aria-busy': 'true' });
    log.append(answer);
    box.value = '';
    button.disabled = true;
    const failure = await send({ inputs: readInputs(form, extraFields), query }, (text) => {
      answer.textContent += text;
      log.scrollTop = log.scrollHeight;
    });
    answer.removeAttribute('aria-busy');
    if (failure) log.append(h('div', { class: 'error', role: 'alert' }, failure));
    button.disabled = false;
    box.focus();
  });
  root.append(log, form);
}

function completion(root: HTMLElement) {
  const output = h('div', { class: 'output', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, 'Run');
  const form = h('form', { class: 'form' }, ...fieldRows(settings.fields), button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    button.disabled = true;
    output.textContent = '';
    output.className = 'output';
    const failure = await send({ inputs: readInputs(form, settings.fields) }, (text) => {
      output.textContent += text;
    });
    if (failure) {
      output.className = 'output error';
      output.setAttribute('role', 'alert');
      output.textContent = failure;
    }
    button.disabled = false;
  });
  root.append(h('p', { class: 'hint' }, settings.description), form, output);
}

document.head.append(h('style', {}, WIDGET_CSS));
const root = document.getElementById('app') as HTMLElement;
root.className = `widget ${settings.mode}`;
root.append(h('header', {}, h('h1', {}, settings.name), h('span', { class: 'price' }, price)));
if (settings.mode === 'chat') chat(root);
else completion(root);
