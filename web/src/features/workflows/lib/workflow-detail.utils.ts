// The workflow detail screen's form state and the bodies it sends; kept apart from the components
// so the rules (secret-looking fields, number parsing, the input form's shape) are unit tested.
import type {
  Application,
  ApplicationUpdate,
  AppStatus,
  Visibility,
  WorkflowAppInfo,
  WorkflowConfig,
  WorkflowConfigUpdate,
  WorkflowProviderInfo,
} from '@tollbooth/contract';
import { centsToDollars, dollarsToCents } from '@/lib/price';

export const WORKFLOW_NOT_FOUND_MESSAGE = 'Workflow not found';
export const NO_PROVIDERS_MESSAGE = 'No providers available';
export const NO_SCHEMA_MESSAGE = 'No configuration schema available';
export const WORKFLOW_DEFAULTS = { timeout_seconds: 300, max_iterations: 10, enable_logging: true } as const;

export interface WorkflowBasicValues {
  name: string;
  description: string;
  status: AppStatus;
  visibility: Visibility;
  /** The price per call as typed, in dollars. */
  price: string;
}

export interface WorkflowSettingsValues {
  provider: string;
  provider_config: Record<string, string>;
  timeout_seconds: string;
  max_iterations: string;
  enable_logging: boolean;
}

/** The spec's rule: a field whose title contains "password" or "key" is a password-style input. */
export function isSecretLooking(title: string): boolean {
  return /password|key/i.test(title);
}

export function basicValuesOf(app: Application): WorkflowBasicValues {
  return { name: app.name, description: app.description, status: app.status, visibility: app.visibility, price: centsToDollars(app.price_cents) };
}

/** A price typed in dollars as cents ≥ 0; anything non-numeric becomes 0. */
export function parsePrice(text: string): number {
  return Math.max(0, dollarsToCents(text));
}

export function buildWorkflowAppBody(values: WorkflowBasicValues): ApplicationUpdate {
  return {
    name: values.name.trim(),
    description: values.description.trim(),
    status: values.status,
    visibility: values.visibility,
    price_cents: parsePrice(values.price),
  };
}

export function settingsValuesOf(config: WorkflowConfig): WorkflowSettingsValues {
  return {
    provider: config.provider?.id ?? '',
    provider_config: { ...config.provider_config },
    timeout_seconds: String(config.timeout_seconds),
    max_iterations: String(config.max_iterations),
    enable_logging: config.enable_logging,
  };
}

/** A whole number typed in a field, or the saved value when the text is not one. */
function integerOr(text: string, saved: number): number {
  const value = Number(text);
  return text.trim() !== '' && Number.isInteger(value) ? value : saved;
}

/** The PATCH body: only the selected provider's fields, numbers parsed, changelog "Updated via UI". */
export function buildWorkflowConfigBody(values: WorkflowSettingsValues, saved: WorkflowConfig, provider: WorkflowProviderInfo | null): WorkflowConfigUpdate {
  const fields = provider ? Object.keys(provider.config_schema.properties) : Object.keys(values.provider_config);
  const providerConfig: Record<string, string> = {};
  for (const name of fields) providerConfig[name] = values.provider_config[name] ?? '';
  return {
    ...(values.provider ? { provider: values.provider } : {}),
    provider_config: providerConfig,
    timeout_seconds: integerOr(values.timeout_seconds, saved.timeout_seconds),
    max_iterations: integerOr(values.max_iterations, saved.max_iterations),
    enable_logging: values.enable_logging,
    changelog: 'Updated via UI',
  };
}

/** The provider form's starting values: what is saved, else each field's default. */
export function providerFormValues(provider: WorkflowProviderInfo, current: Record<string, string>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, field] of Object.entries(provider.config_schema.properties)) values[name] = current[name] ?? field.default ?? '';
  return values;
}

export interface InputFormField {
  kind: string;
  label: string;
  variable: string;
  required: boolean;
  options: string[];
  maxLength: number | null;
  defaultValue: string | null;
}

/** Dify's user_input_form ([{"text-input": {label, variable, required, …}}, …]) as a flat list. */
export function inputFormFields(appInfo: WorkflowAppInfo | null): InputFormField[] {
  if (!appInfo) return [];
  const fields: InputFormField[] = [];
  for (const entry of appInfo.user_input_form) {
    const [kind, raw] = Object.entries(entry)[0] ?? [];
    if (!kind || typeof raw !== 'object' || raw === null) continue;
    const field = raw as Record<string, unknown>;
    if (typeof field.variable !== 'string') continue;
    fields.push({
      kind,
      label: typeof field.label === 'string' && field.label ? field.label : field.variable,
      variable: field.variable,
      required: field.required === true,
      options: Array.isArray(field.options) ? field.options.filter((option): option is string => typeof option === 'string') : [],
      maxLength: typeof field.max_length === 'number' && field.max_length > 0 ? field.max_length : null,
      defaultValue: typeof field.default === 'string' && field.default ? field.default : null,
    });
  }
  return fields;
}

/** How a Dify app mode reads to a person. */
export function describeMode(mode: string): string {
  switch (mode) {
    case 'chat':
      return 'Chatbot';
    case 'advanced-chat':
      return 'Chatflow';
    case 'agent-chat':
      return 'Agent';
    case 'completion':
      return 'Text Generator';
    case 'workflow':
      return 'Workflow';
    default:
      return mode;
  }
}
