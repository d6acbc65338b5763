// Model choices (spec section 9). The builder and the detail page offer different lists; both are
// names the server accepts (MODEL_NAMES in the contract). A stored model missing from a page's list
// is added to it so opening and saving the page never changes the model.
import type { MODEL_NAMES } from '@tollbooth/contract';

export type ModelName = (typeof MODEL_NAMES)[number];

export interface ModelOption {
  value: ModelName;
  label: string;
}

export const BUILDER_MODEL_OPTIONS: readonly ModelOption[] = [
  { value: 'gpt-4-turbo', label: 'gpt-4-turbo (recommended)' },
  { value: 'gpt-4', label: 'gpt-4' },
  { value: 'claude-3-opus', label: 'claude-3-opus' },
  { value: 'claude-3-sonnet', label: 'claude-3-sonnet' },
  { value: 'claude-3-haiku', label: 'claude-3-haiku' },
  { value: 'gemini-pro', label: 'gemini-pro' },
];

export const DETAIL_MODEL_OPTIONS: readonly ModelOption[] = [
  { value: 'gpt4', label: 'gpt4' },
  { value: 'claude3', label: 'claude3' },
  { value: 'gemini', label: 'gemini' },
  { value: 'mixtral', label: 'mixtral' },
];

/** The page's options, plus the stored model when the list lacks it. */
export function modelOptionsWith(options: readonly ModelOption[], current: string): readonly ModelOption[] {
  if (!current || options.some((option) => option.value === current)) return options;
  return [...options, { value: current as ModelName, label: current }];
}
