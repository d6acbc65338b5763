// The one model list, offered by the builder and the detail page alike: the model table's names
// (the contract's MODEL_NAMES, which the server's table maps to providers and accepts), the
// builder's names first with the recommended default, then the detail page's short names. A stored
// model missing from the list is added to it so opening and saving a page never changes the model.
import { DEFAULT_MODEL_SETTINGS, MODEL_NAMES, type RuntimeConfig } from '@tollbooth/contract';
import { useRuntimeConfig } from '@/lib/runtime-config';

export type ModelName = (typeof MODEL_NAMES)[number];

export interface ModelOption {
  value: ModelName;
  label: string;
}

export const MODEL_OPTIONS: readonly ModelOption[] = MODEL_NAMES.map((name) => ({
  value: name,
  label: name === DEFAULT_MODEL_SETTINGS.model ? `${name} (recommended)` : name,
}));

/** The list, plus the stored model when the list lacks it. */
export function modelOptionsWith(current: string, options: readonly ModelOption[] = MODEL_OPTIONS): readonly ModelOption[] {
  if (!current || options.some((option) => option.value === current)) return options;
  return [...options, { value: current as ModelName, label: current }];
}

/**
 * The models this server offers (GET /api/config `models`): only those a configured provider or the
 * demo model answers, aliases left out, demo ones marked (issue 25). A server that does not say
 * gets the whole list.
 */
export function offeredModelOptions(offered: RuntimeConfig['models']): readonly ModelOption[] {
  if (!offered) return MODEL_OPTIONS;
  return offered.map(({ name, demo }) => {
    const base = name === DEFAULT_MODEL_SETTINGS.model ? `${name} (recommended)` : name;
    return { value: name as ModelName, label: demo ? `${base} (demo model: provider not configured)` : base };
  });
}

/** The model select's options: the offered models, plus the stored one when it is not offered. */
export function useModelOptions(current: string): readonly ModelOption[] {
  return modelOptionsWith(current, offeredModelOptions(useRuntimeConfig().models));
}
