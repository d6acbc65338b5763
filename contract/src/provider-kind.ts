// The model providers a model name can be served by: named once, for the runtime settings (system.ts)
// and the demo model's words (demo-model.ts), which both import it and not each other.
import { type TSchemaOptions, Type } from 'typebox';

/** The model providers a model name can be served by. */
export const PROVIDER_KINDS = ['openai', 'anthropic', 'gemini'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** The schema of a provider kind (a fresh one each call, so each use carries its own description). */
export function providerKindSchema(options?: TSchemaOptions) {
  return Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('gemini')], options);
}

export const ProviderKind = providerKindSchema();
