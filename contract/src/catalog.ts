// The public catalog: live public applications anyone can find without signing in, and each one's
// public page (inputs, plans, how to call it). Server and web both use these.
import { type Static, Type } from 'typebox';
import { AppType, InteractionMode } from './apps.ts';
import { NullableDateTime } from './common.ts';
import { RateCardView } from './pricing.ts';

export const CATALOG_SORTS = ['popular', 'newest', 'price_asc', 'price_desc'] as const;
export type CatalogSort = (typeof CATALOG_SORTS)[number];
export const CATALOG_DEFAULT_LIMIT = 20;
export const CATALOG_MAX_LIMIT = 50;
/** Popularity counts successful calls over this many days, read from the daily rollups. */
export const CATALOG_POPULAR_DAYS = 30;

export const CatalogQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 200, description: 'Words found in the name, description, slug or creator name (case-insensitive)' })),
    type: Type.Optional(AppType),
    mode: Type.Optional(InteractionMode),
    price: Type.Optional(Type.Union([Type.Literal('free'), Type.Literal('paid')], { description: 'free: price 0; paid: above 0' })),
    max_price_cents: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Only apps whose price now is at most this' })),
    sort: Type.Optional(
      Type.Union([Type.Literal('popular'), Type.Literal('newest'), Type.Literal('price_asc'), Type.Literal('price_desc')], {
        default: 'popular',
        description: `popular: most successful calls over the last ${CATALOG_POPULAR_DAYS} days; newest: latest published first`,
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CATALOG_MAX_LIMIT, default: CATALOG_DEFAULT_LIMIT })),
    cursor: Type.Optional(Type.String({ maxLength: 500, description: 'next_cursor of the previous page (same filters and sort)' })),
  },
  { additionalProperties: false },
);
export type CatalogQuery = Static<typeof CatalogQuery>;

export const CatalogApp = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: AppType,
  mode: InteractionMode,
  price_cents: Type.Integer({ description: 'Price per call in force now, integer cents' }),
  upcoming_price_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'An announced increase, in force from upcoming_price_at' }),
  upcoming_price_at: NullableDateTime(),
  pricing: Type.Optional(RateCardView),
  upcoming_pricing: Type.Optional(
    Type.Union([RateCardView, Type.Null()], { description: 'An announced rate card that costs callers more, from upcoming_price_at on' }),
  ),
  creator_name: Type.String({ description: "The creator's display name (never an e-mail address)" }),
  calls_30d: Type.Integer({ description: `Successful calls over the last ${CATALOG_POPULAR_DAYS} days` }),
  published_at: Type.String({ format: 'date-time' }),
  demo_model: Type.Boolean({
    description:
      "True when the app's model is answered by the built-in demo model (its provider is not configured on this server): demo answers are free and not a real model's",
  }),
});
export type CatalogApp = Static<typeof CatalogApp>;

// The object page shape of every paged list (http/pagination.ts PageEnvelope; decision 0029).
export const CatalogPage = Type.Object({
  results: Type.Array(CatalogApp),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
});
export type CatalogPage = Static<typeof CatalogPage>;

/** One input of an app, whatever made it (a prompt app's input schema or a Dify app's input form). */
export const CatalogField = Type.Object({
  name: Type.String({ description: 'The key sent in inputs' }),
  label: Type.String(),
  description: Type.String(),
  control: Type.Union([
    Type.Literal('text'),
    Type.Literal('paragraph'),
    Type.Literal('number'),
    Type.Literal('integer'),
    Type.Literal('boolean'),
    Type.Literal('select'),
    Type.Literal('json'),
  ]),
  required: Type.Boolean(),
  default: Type.Optional(Type.Unknown()),
  options: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
  minimum: Type.Optional(Type.Number()),
  maximum: Type.Optional(Type.Number()),
  minLength: Type.Optional(Type.Integer()),
  maxLength: Type.Optional(Type.Integer()),
});
export type CatalogField = Static<typeof CatalogField>;

export const CatalogPlan = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  price: Type.Number({ description: 'Per month, in dollars' }),
  price_cents: Type.Integer(),
  currency: Type.String(),
  features: Type.Record(Type.String(), Type.String()),
  included_calls: Type.Integer(),
  included_usage_micros: Type.Integer({ description: "Dollars of usage per period, in micro-dollars, charged at the app's rate (0: none)" }),
});
export type CatalogPlan = Static<typeof CatalogPlan>;

export const CatalogSnippets = Type.Object({
  curl: Type.String(),
  javascript: Type.String({ description: 'fetch, as an ES module (top-level await)' }),
  python: Type.String({ description: 'requests' }),
  dify_sdk: Type.String({ description: 'The dify-client npm package' }),
  openai_sdk: Type.String({ description: 'The openai npm package against the OpenAI-compatible endpoint' }),
});
export type CatalogSnippets = Static<typeof CatalogSnippets>;

/** The placeholder the snippets carry where the caller's API key goes. */
export const SNIPPET_API_KEY_PLACEHOLDER = 'YOUR_API_KEY';

export const CatalogAppDetail = Type.Object({
  ...CatalogApp.properties,
  fields: Type.Array(CatalogField),
  text_input: Type.Union([Type.String(), Type.Null()], {
    description: 'The input a plain text fills (completion apps); chat apps take their text as query. null: none',
  }),
  plans: Type.Array(CatalogPlan, { description: 'Active billing plans; subscribe at billing_path' }),
  billing_path: Type.String(),
  endpoints: Type.Object({
    call: Type.String({ description: 'Full URL of the completion-messages or chat-messages endpoint' }),
    dify_base_url: Type.String({ description: 'Base URL for a Dify client' }),
    openai_base_url: Type.String({ description: 'Base URL for an OpenAI client (model = slug)' }),
    openapi: Type.String({ description: "URL of this app's OpenAPI document" }),
  }),
  snippets: CatalogSnippets,
});
export type CatalogAppDetail = Static<typeof CatalogAppDetail>;

/** GET /api/app/{slug}/inputs: the inputs of any app the caller may call (embed apps too), for the console (issue 25). */
export const AppInputs = Type.Object({
  mode: Type.Union([Type.Literal('completion'), Type.Literal('chat')], { description: 'The endpoint calls take: completion-messages or chat-messages' }),
  fields: Type.Array(CatalogField),
  text_input: Type.Union([Type.String(), Type.Null()], {
    description: 'The input a plain text fills (completion apps); chat apps take their text as query. null: none',
  }),
  demo_model: Type.Optional(Type.Boolean({ description: "True when the app's model is answered by the built-in demo model" })),
});
export type AppInputs = Static<typeof AppInputs>;
