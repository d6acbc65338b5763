// The built-in demo model: which settings make a model's provider real, and the words the gateway,
// the app page and the builder use to say that an app answers from the demo model (and is free).
import { type Static, Type } from 'typebox';
import { type ProviderKind, providerKindSchema } from './provider-kind.ts';

/** The environment variables that configure each provider kind (README.md, Configuration). */
export const PROVIDER_SETUP: Readonly<Record<ProviderKind, string>> = {
  openai: 'OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama, vLLM or OpenRouter)',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
};

/** A model the server answers with the demo model, because its provider is not configured. */
export const DemoModel = Type.Object({
  name: Type.String({ description: 'The model name apps choose (the model table key)' }),
  provider: providerKindSchema({ description: 'The provider that would serve it once configured' }),
});
export type DemoModel = Static<typeof DemoModel>;

/** One sentence on how the server's operator gives a model a real provider. */
export function providerSetupText(provider: ProviderKind): string {
  return `To answer with the real model, the server's operator sets ${PROVIDER_SETUP[provider]} and restarts Tollbooth.`;
}

/** What an answer's metadata.demo_notice says. */
export function demoAnswerNotice(model: string, provider: ProviderKind): string {
  return `Answered by Tollbooth's built-in demo model: no model provider is configured for "${model}", so this call was not charged. ${providerSetupText(provider)}`;
}

/** What the app page and the builder say about an app (or a model choice) the demo model answers. */
export function demoModelNotice(model: string, provider: ProviderKind): string {
  return `No model provider is configured for "${model}" on this server, so the built-in demo model answers every call with a demo reply. Demo answers are never charged: callers pay nothing and the app earns nothing until a provider is configured. ${providerSetupText(provider)}`;
}
