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
  priceCents: number;
  kind: 'completion' | 'chat';
  source: 'prompt' | 'workflow';
  fields: AppField[];
}

export const app = description as AppDescription;

export const formatPrice = (cents: number) => `$${(cents / 100).toFixed(2)}`;
