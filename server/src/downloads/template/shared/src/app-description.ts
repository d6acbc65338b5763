// The endpoint this app was generated for, as Tollbooth described it when you downloaded it.
// app-description.json is plain data: edit it (labels, descriptions, defaults) to change the form.
import description from './app-description.json';

export type FieldControl = 'text' | 'paragraph' | 'number' | 'integer' | 'boolean' | 'select' | 'json';

export interface AppField {
  /** The key sent in `inputs`. */
  name: string;
  label: string;
  description: string;
  control: FieldControl;
  required: boolean;
  default?: unknown;
  options?: (string | number | boolean)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

export interface AppDescription {
  slug: string;
  name: string;
  description: string;
  /** The least a call costs, in cents (the spending cap of server.js counts calls at it). */
  priceCents: number;
  /** The rate card in one line: "$0.05 per call", "$2.00 in / $8.00 out per million tokens". */
  price: string;
  /** The rate card line by line. */
  priceLines: string[];
  /** Per token or cost-plus: a call costs what it uses (server.js counts each at its answer's total_price). */
  priceVaries: boolean;
  kind: 'completion' | 'chat';
  source: 'prompt' | 'workflow';
  fields: AppField[];
}

export const app = description as AppDescription;

export const formatPrice = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** An answer's usage.total_price ("0.0051200", decimal dollars) as "$0.00512": at least 2 decimals, at most 6. */
export function formatDollarsText(text: string): string {
  const [whole = '0', fraction = ''] = text.trim().split('.');
  return `$${whole || '0'}.${fraction.slice(0, 6).replace(/0+$/, '').padEnd(2, '0')}`;
}
