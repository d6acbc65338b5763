// Client-side rules of the create and edit forms (spec section 5), kept apart from the components
// so they can be tested on their own.

import type { Application, ApplicationCreate, ApplicationUpdate, AppType, InteractionMode, Visibility } from '@tollbooth/contract';
import { frontendKindOfDifyMode } from '@tollbooth/contract';
import { type PriceFormValues, priceBodyOf, priceFormValuesOf, validatePriceForm } from '@/components/pricing/price-form.utils';
import { DEFAULT_PRICE_CENTS } from '@/lib/price';

/** The price fields (issue 60): the form chosen, the price per call as typed in dollars, the other forms' rates. */
export interface CreateAppValues extends PriceFormValues {
  name: string;
  description: string;
  type: AppType | '';
  interaction_mode: InteractionMode | '';
  visibility: Visibility | '';
  provider_app_id: string;
  provider_api_key: string;
  /** The Dify Service API base URL (Dify Cloud by default; a self-hosted Dify's /v1 otherwise). */
  provider_base_url: string;
}

/** The price field of the create and edit forms: typed in dollars (issue 61), with its per-call preview. */
export const APP_PRICE_FIELD = { key: 'price', label: 'Price per API call (USD)', min: 0.01 } as const;

export const DEFAULT_DIFY_BASE_URL = 'https://api.dify.ai/v1';

export type CreateAppErrors = Partial<Record<keyof CreateAppValues, string>>;

export function initialCreateValues(type: AppType): CreateAppValues {
  return {
    name: '',
    description: '',
    type,
    interaction_mode: 'completion',
    visibility: 'private',
    provider_app_id: '',
    provider_api_key: '',
    provider_base_url: DEFAULT_DIFY_BASE_URL,
    ...priceFormValuesOf(null, DEFAULT_PRICE_CENTS),
  };
}

/** `?type=workflow` opens the workflow form; anything else the prompt form. */
export function typeFromQuery(value: string | null): AppType {
  return value === 'workflow' ? 'workflow' : 'prompt';
}

export function validateCreateApp(values: CreateAppValues): CreateAppErrors {
  const errors: CreateAppErrors = {};
  if (!values.name.trim()) errors.name = 'Name is required.';
  if (!values.type) errors.type = 'Type is required.';
  if (!values.visibility) errors.visibility = 'Visibility is required.';
  if (values.type === 'prompt' && !values.interaction_mode) errors.interaction_mode = 'Interaction mode is required.';
  if (values.type === 'workflow') {
    if (!values.provider_app_id.trim()) errors.provider_app_id = 'Provider App ID is required.';
    if (!values.provider_api_key.trim()) errors.provider_api_key = 'Provider API Key is required.';
  }
  return { ...errors, ...validatePriceForm(values, values.type) };
}

/**
 * The POST body: interaction_mode for prompts, provider_config for workflows. A workflow whose
 * connection was tested also sends the mode its Dify app answers in (difyMode), so the endpoint the
 * detail page and the console show is the right one before the first call (issue 25).
 */
export function buildCreateBody(values: CreateAppValues, difyMode?: string): ApplicationCreate {
  const type: AppType = values.type || 'prompt';
  const body: ApplicationCreate = {
    name: values.name.trim(),
    description: values.description.trim(),
    type,
    visibility: values.visibility || 'private',
    ...priceBodyOf(values),
  };
  if (type === 'prompt') body.interaction_mode = values.interaction_mode || 'completion';
  else {
    body.provider_config = providerConfigOf(values);
    if (difyMode) body.interaction_mode = frontendKindOfDifyMode(difyMode);
  }
  return body;
}

/** The workflow provider settings the form holds (the base URL defaults to Dify Cloud's). */
export function providerConfigOf(values: CreateAppValues): { app_id: string; api_key: string; base_url: string } {
  return {
    app_id: values.provider_app_id.trim(),
    api_key: values.provider_api_key.trim(),
    base_url: values.provider_base_url.trim() || DEFAULT_DIFY_BASE_URL,
  };
}

export interface EditAppValues extends PriceFormValues {
  name: string;
  description: string;
  visibility: Visibility;
}

/** The edit form's values of an app: its card in force (an announced one waits; the form changes what applies next). */
export function editValuesOf(app: Pick<Application, 'name' | 'description' | 'visibility' | 'price_cents' | 'pricing'>): EditAppValues {
  return { name: app.name, description: app.description, visibility: app.visibility, ...priceFormValuesOf(app.pricing, app.price_cents) };
}

export type EditAppErrors = Partial<Record<keyof EditAppValues, string>>;

export function validateEditApp(values: EditAppValues, type: AppType = 'prompt'): EditAppErrors {
  const errors: EditAppErrors = {};
  if (!values.name.trim()) errors.name = 'Name is required.';
  return { ...errors, ...validatePriceForm(values, type) };
}

export function buildUpdateBody(values: EditAppValues): ApplicationUpdate {
  return {
    name: values.name.trim(),
    description: values.description.trim(),
    visibility: values.visibility,
    ...priceBodyOf(values),
  };
}
