import { type Static, Type } from 'typebox';
import { NullableDateTime } from './common.ts';

/** What binds a publishable key: where it may be framed, what it may call, and how much it may spend. */
export const PublishableKeyDetails = Type.Object({
  key: Type.String({ description: 'The full publishable key (pk_ + 43 base62 characters): public by design, it goes in the embed snippet' }),
  allowed_origins: Type.Array(Type.String(), { description: 'Website origins (scheme://host[:port]) allowed to frame the widget' }),
  app_slugs: Type.Array(Type.String(), { description: 'The apps the key may call' }),
  daily_spend_limit_cents: Type.Integer({ description: 'Most the key may spend per UTC day' }),
  visitor_rate_limit_per_minute: Type.Integer({ description: 'Calls one widget visitor may make per minute' }),
  spent_today_cents: Type.Integer({ description: 'What calls made with this key were charged since the start of the current UTC day' }),
});

/** An API key as listed: never a secret key itself, never its hash (a publishable key is public and listed whole). */
export const ApiKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  prefix: Type.String({ description: 'The visible start of the key, e.g. tb_AbCd1234, to tell keys apart' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: NullableDateTime({
    description: 'When the key last authenticated a call (updated at most once a minute)',
  }),
  revoked_at: NullableDateTime(),
  monthly_spend_limit_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'Most the key may spend per UTC calendar month; null: no limit' }),
  max_price_cents: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Most one call made with this key may cost; a call to an app priced above it answers 402 price_above_limit. null: no cap',
  }),
  spent_this_month_cents: Type.Integer({ description: 'What calls made with this key were charged since the start of the current UTC month' }),
  kind: Type.Union([Type.Literal('secret'), Type.Literal('publishable')], {
    description: 'secret (tb_…): for servers, never shown again. publishable (pk_…): for the embed widget, public by design, bound to origins, apps and caps',
  }),
  publishable: Type.Union([PublishableKeyDetails, Type.Null()], { description: 'The bindings of a publishable key; null for a secret key' }),
});

/** The answer to creating a key: the only time the full key is ever shown. */
export const ApiKeyCreated = Type.Object({
  ...ApiKey.properties,
  key: Type.String({ description: 'The full key (tb_ or pk_ + 43 base62 characters). A secret key is shown once: only its hash is stored.' }),
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
    kind: Type.Optional(
      Type.Union([Type.Literal('secret'), Type.Literal('publishable')], {
        description: 'secret (default) or publishable; a publishable key needs allowed_origins, app_slugs, both spend limits and visitor_rate_limit_per_minute',
      }),
    ),
    allowed_origins: Type.Optional(
      Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: 20, description: 'Publishable keys: origins such as https://example.com' }),
    ),
    app_slugs: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 50, description: 'Publishable keys: the apps it may call' })),
    daily_spend_limit_cents: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100_000_000_000, description: 'Publishable keys: integer cents per UTC day (required)' }),
    ),
    visitor_rate_limit_per_minute: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10_000, description: 'Publishable keys: calls per minute per widget visitor (default 10)' }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKeyListQuery = Type.Object({
  include_revoked: Type.Boolean({ default: false, description: 'Also list revoked keys' }),
  kind: Type.Optional(Type.Union([Type.Literal('secret'), Type.Literal('publishable')], { description: 'List only keys of this kind' })),
});

export const ApiKeyParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export type ApiKey = Static<typeof ApiKey>;
export type PublishableKeyDetails = Static<typeof PublishableKeyDetails>;
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;
