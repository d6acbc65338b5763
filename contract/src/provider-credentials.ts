import { type Static, Type } from 'typebox';

/** Bring your own key: the provider kinds a creator may add their own credential for (one each). */
export const CREDENTIAL_KINDS = ['openai', 'anthropic', 'gemini'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];
export const CredentialKind = Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('gemini')], {
  description: 'openai: any OpenAI-compatible server (base URL and key); anthropic and gemini: the provider’s own API',
});

/** Where a prompt app's model calls go: the platform's provider keys, or the owner's own credential for the model's provider. */
export const KeySource = Type.Union([Type.Literal('platform'), Type.Literal('own')], {
  description: 'platform: the platform’s models (model cost charged); own: the creator’s own provider key from their profile (no model cost)',
});
export type KeySource = Static<typeof KeySource>;

export const ProviderCredential = Type.Object({
  kind: CredentialKind,
  base_url: Type.Union([Type.String(), Type.Null()], { description: 'The OpenAI-compatible base URL (kind openai only)' }),
  api_key_masked: Type.String({ description: 'The key’s last four characters, the rest masked' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type ProviderCredential = Static<typeof ProviderCredential>;

export const ProviderCredentialList = Type.Object({ results: Type.Array(ProviderCredential) });
export type ProviderCredentialList = Static<typeof ProviderCredentialList>;

export const ProviderCredentialSave = Type.Object(
  {
    base_url: Type.Optional(Type.String({ maxLength: 2000, description: 'Required for kind openai, e.g. https://api.openai.com/v1' })),
    api_key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'Required when adding; leave out to keep the stored key (e.g. to change the base URL only)' }),
    ),
  },
  { additionalProperties: false },
);
export type ProviderCredentialSave = Static<typeof ProviderCredentialSave>;

/** Test Connection: the values being edited (unsaved), or nothing to test the stored credential. */
export const ProviderCredentialTest = Type.Object(
  {
    base_url: Type.Optional(Type.String({ maxLength: 2000 })),
    api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The upstream model to ask for one token (a default per kind)' })),
  },
  { additionalProperties: false },
);
export type ProviderCredentialTest = Static<typeof ProviderCredentialTest>;

export const ProviderCredentialTestResult = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  model: Type.String({ description: 'The upstream model that was asked' }),
  latency_ms: Type.Integer(),
});
export type ProviderCredentialTestResult = Static<typeof ProviderCredentialTestResult>;
