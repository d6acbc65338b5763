// The widget's HTML: a shell the widget script (web/src/embed/widget.ts, built to
// web/dist/embed/widget.js) fills from the settings in a JSON block. The JSON is data, never run,
// so the page's policy allows scripts from our own origin only.
import { type CatalogField, perCallCard, type RateCard, rateCardSummary } from '@tollbooth/contract';

export interface WidgetSettings {
  slug: string;
  name: string;
  description: string;
  /** What one answer costs the key's owner (0 on their own app). */
  priceCents: number;
  /** The same in words, from the app's rate card (issue 60): "Free", "$0.25 per answer", "$2.00 in / $8.00 out per million tokens". */
  price: string;
  mode: 'completion' | 'chat';
  fields: CatalogField[];
  textInput: string | null;
  key: string;
  token: string;
  theme: 'light' | 'dark';
}

/** The widget's price line: the rate card in one line, "Free" when the key's owner pays nothing (their own app, or a free one). */
export function widgetPriceText(card: RateCard | null, priceCents: number, ownApp: boolean): string {
  const shown = card ?? perCallCard(priceCents);
  if (ownApp || (shown.form === 'per_call' && shown.call_micros === 0 && shown.minimum_micros === 0)) return 'Free';
  return rateCardSummary(shown).replace(/ per call$/, ' per answer');
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] as string);

/** JSON that cannot end its <script> element or open a comment inside it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

const head = (title: string, theme: string) =>
  `<!doctype html><html lang="en" data-theme="${theme}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>`;

export function renderWidgetPage(settings: WidgetSettings): string {
  return `${head(settings.name, settings.theme)}<script type="application/json" id="tollbooth-embed">${scriptJson(settings)}</script><script src="/embed/widget.js" defer></script></head><body><div id="app"></div></body></html>`;
}

/** A refusal the visitor can read (when the browser shows it at all: on a site the key does not allow, it will not). */
export function renderRefusalPage(message: string, theme: 'light' | 'dark'): string {
  const colors = theme === 'dark' ? 'background:#111827;color:#e5e7eb' : 'background:#fff;color:#374151';
  return `${head('Widget unavailable', theme)}</head><body style="margin:0;font:14px system-ui,sans-serif;${colors}"><p role="alert" data-embed-refused style="padding:16px;margin:0">${escapeHtml(message)}</p></body></html>`;
}
