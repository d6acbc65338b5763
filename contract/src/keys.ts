import { type Static, Type } from 'typebox';

/** An API key as listed: never the key itself, never its hash. */
export const ApiKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  prefix: Type.String({ description: 'The visible start of the key, e.g. tb_AbCd1234, to tell keys apart' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the key last authenticated a call (updated at most once a minute)',
  }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  monthly_spend_limit_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'Most the key may spend per UTC calendar month; null: no limit' }),
  max_price_cents: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Most one call made with this key may cost; a call to an app priced above it answers 402 price_above_limit. null: no cap',
  }),
  spent_this_month_cents: Type.Integer({ description: 'What calls made with this key were charged since the start of the current UTC month' }),
});

/** The answer to creating a key: the only time the full key is ever shown. */
export const ApiKeyCreated = Type.Object({
  ...ApiKey.properties,
  key: Type.String({ description: 'The full key (tb_ + 43 base62 characters). Shown once: only its hash is stored.' }),
});

export const ApiKeyList = Type.Array(ApiKey);

export const ApiKeyCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    monthly_spend_limit_cents: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 100_000_000_000 }), Type.Null()], {
        description: 'Integer cents per UTC calendar month; null or absent: no limit',
      }),
    ),
    max_price_cents: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 100_000_000 }), Type.Null()], {
        description: 'Most one call made with this key may cost, in integer cents; null or absent: no cap',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKeyListQuery = Type.Object({
  include_revoked: Type.Boolean({ default: false, description: 'Also list revoked keys' }),
});

export const ApiKeyParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export type ApiKey = Static<typeof ApiKey>;
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;
