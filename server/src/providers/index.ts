// The model provider layer's public face for the gateway.
export { createAnthropicProvider } from './anthropic.ts';
export { createDemoProvider, demoAnswer } from './demo.ts';
export { createGeminiProvider } from './gemini.ts';
export { createOpenAICompatibleProvider } from './openai-compatible.ts';
export {
  createModelRouter,
  DEFAULT_MODEL_TABLE,
  KNOWN_MODELS,
  type KnownModel,
  type ModelRouter,
  type ModelRouterOptions,
  type ModelTable,
  type ModelTableEntry,
  type OwnCredential,
  type OwnCredentials,
  PROVIDER_KINDS,
  type ProviderKind,
  parseModelTable,
  type ResolvedModel,
} from './registry.ts';
export { countPromptTokens, countTokens } from './tokens.ts';
export type { ChatImage, ChatMessage, ModelProvider, ModelRequest, ModelResult, ModelStreamEvent, ModelUsage } from './types.ts';
export { isAbortError, ProviderAbortError } from './upstream.ts';
