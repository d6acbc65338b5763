// The one model list, offered by the builder and the detail page alike: the model table's names
// (the contract's MODEL_NAMES, which the server's table maps to providers and accepts), the
// builder's names first with the recommended default, then the detail page's short names. A stored
// model missing from the list is added to it so opening and saving a page never changes the model.
import { DEFAULT_MODEL_SETTINGS, MODEL_NAMES } from '@tollbooth/contract';

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
