import { type Static, Type } from 'typebox';
import { NullableDateTime } from './common.ts';
import { Pricing, RateCardView } from './pricing.ts';

export const APP_TYPES = ['prompt', 'workflow'] as const;
export const INTERACTION_MODES = ['completion', 'chat'] as const;
export const VISIBILITIES = ['private', 'public', 'embed'] as const;
export const APP_STATUSES = ['draft', 'live', 'archived'] as const;

export const AppType = Type.Union([Type.Literal('prompt'), Type.Literal('workflow')]);
export const InteractionMode = Type.Union([Type.Literal('completion'), Type.Literal('chat')]);
export const Visibility = Type.Union([Type.Literal('private'), Type.Literal('public'), Type.Literal('embed')]);
export const AppStatus = Type.Union([Type.Literal('draft'), Type.Literal('live'), Type.Literal('archived')]);

export const ProviderConfigView = Type.Object({
  app_id: Type.String(),
  api_key: Type.String({ description: 'Masked: only the last 4 characters are shown' }),
  base_url: Type.String(),
});

/** Why a price increase waits, and what the calls until then cost the creator (issue 61, decision 0110). */
export const PriceNotice = Type.Object(
  {
    applies_at: Type.String({ format: 'date-time', description: 'When the new price applies' }),
    notice_days: Type.Integer({ minimum: 0 }),
    calls_last_period: Type.Integer({
      minimum: 0,
      description: 'Successful calls by others in the last notice period (the expected calls until the new price)',
    }),
    subscribers: Type.Integer({ minimum: 0, description: 'Live subscriptions to the app' }),
    typical_model_cost_micros: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Mean model cost of the app's recent paid calls, in micro-dollars; null without such calls",
    }),
    loss_until_then_micros: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        "What the calls until then cost the creator beyond their price at the last period's pace (typical model cost − price, × calls_last_period); null without a typical cost",
    }),
  },
  { description: 'Owner only, in the answer of the save that announced a price increase instead of applying it' },
);
export type PriceNotice = Static<typeof PriceNotice>;

export const Application = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  type: AppType,
  interaction_mode: InteractionMode,
  call_mode: Type.Optional(
    Type.Union([Type.Literal('completion'), Type.Literal('chat')], {
      description:
        "The endpoint calls take: chat (chat-messages) or completion (completion-messages). A prompt app's interaction_mode; a workflow app's Dify app mode (chat, advanced-chat and agent-chat apps are chat)",
    }),
  ),
  visibility: Visibility,
  status: AppStatus,
  price_cents: Type.Integer({ description: 'Price per API call in integer cents, in force now' }),
  upcoming_price_cents: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'An announced price increase: it applies to calls from upcoming_price_at on (increases wait PRICE_INCREASE_NOTICE_DAYS, default 7; decreases apply at once). null: none',
  }),
  upcoming_price_at: NullableDateTime({ description: 'When upcoming_price_cents takes effect' }),
  pricing: Type.Optional(RateCardView),
  upcoming_pricing: Type.Optional(
    Type.Union([RateCardView, Type.Null()], { description: 'An announced rate card that costs callers more, from upcoming_price_at on' }),
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  creator_name: Type.String(),
  is_owner: Type.Boolean({ description: 'True when the signed-in user owns the application' }),
  caller_tools: Type.Optional(
    Type.Boolean({
      description: 'Prompt apps: callers may send tools and response formats (JSON mode, JSON schema) through the OpenAI-compatible endpoints',
    }),
  ),
  provider_config: Type.Optional(Type.Union([ProviderConfigView, Type.Null()], { description: 'Workflow apps, owner only' })),
  price_notice: Type.Optional(PriceNotice),
});

export const ApplicationList = Type.Array(Application);

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Description = Type.String({ maxLength: 2000 });

export const ProviderConfigInput = Type.Object(
  {
    app_id: Type.String({ maxLength: 200 }),
    api_key: Type.String({ maxLength: 500 }),
    base_url: Type.Optional(Type.String({ maxLength: 500, description: 'Dify API base URL; default https://api.dify.ai/v1' })),
  },
  { additionalProperties: false },
);

export const ApplicationCreate = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    type: AppType,
    interaction_mode: Type.Optional(InteractionMode),
    visibility: Type.Optional(Visibility),
    price_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000 })),
    pricing: Type.Optional(Pricing),
    provider_config: Type.Optional(ProviderConfigInput),
  },
  { additionalProperties: false },
);

export const ApplicationUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    visibility: Type.Optional(Visibility),
    status: Type.Optional(AppStatus),
    price_cents: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
    pricing: Type.Optional(Pricing),
    interaction_mode: Type.Optional(InteractionMode),
    slug: Type.Optional(Type.String({ description: 'Locked after creation: only the current slug is accepted' })),
    provider_config: Type.Optional(Type.Partial(ProviderConfigInput)),
    caller_tools: Type.Optional(
      Type.Boolean({ description: 'Prompt apps: let callers send tools and response formats through the OpenAI-compatible endpoints (default true)' }),
    ),
  },
  { additionalProperties: false },
);

export const StatusUpdate = Type.Object({ status: AppStatus }, { additionalProperties: false });

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 120 }) });

export const PeriodQuery = Type.Object({
  days: Type.Union([Type.Literal(7), Type.Literal(30), Type.Literal(90)], { default: 30, description: 'Period length in days: 7, 30 or 90' }),
});

export const UsageAnalytics = Type.Object({
  total_invocations: Type.Integer(),
  total_users: Type.Integer({ description: 'Distinct end users over the period' }),
  total_revenue: Type.Number({ description: 'Dollars, from integer cents (US-dollar revenue only: call prices and USD plans)' }),
  total_revenue_cents: Type.Integer(),
  other_currency_revenue: Type.Array(
    Type.Object({
      currency: Type.String({ description: 'ISO 4217, lower case; never usd' }),
      amount_minor: Type.Integer({ description: "In the currency's minor unit (whole dong, whole yen, cents of a euro)" }),
    }),
    {
      description:
        'Subscription revenue of the period in other currencies, one entry per currency. Never added to total_revenue or to each other (there are no exchange rates); not in total_net either',
    },
  ),
  total_platform_fee_cents: Type.Integer({ description: "The platform's fee of the period's calls, in cents" }),
  total_model_cost: Type.Number({ description: "What the period's calls cost upstream on the platform's model keys, in dollars (micro-dollar precision)" }),
  total_model_cost_micros: Type.Integer({ description: 'The same model cost in micro-dollars (1/10,000 cent)' }),
  total_net: Type.Number({
    description:
      "The creator's margin: revenue less the platform fee and the model cost, in dollars (micro-dollar precision; negative when the model cost more)",
  }),
  data: Type.Array(
    Type.Object({
      date: Type.String({ description: 'ISO day, UTC' }),
      invocations: Type.Integer(),
      revenue: Type.Number({ description: 'Dollars' }),
      model_cost: Type.Number({ description: 'Model cost that day, in dollars (micro-dollar precision)' }),
      net: Type.Number({ description: 'Revenue less platform fee and model cost that day, in dollars' }),
    }),
  ),
});

export type AppType = Static<typeof AppType>;
export type InteractionMode = Static<typeof InteractionMode>;
export type Visibility = Static<typeof Visibility>;
export type AppStatus = Static<typeof AppStatus>;
export type Application = Static<typeof Application>;
export type ApplicationCreate = Static<typeof ApplicationCreate>;
export type ApplicationUpdate = Static<typeof ApplicationUpdate>;
export type UsageAnalytics = Static<typeof UsageAnalytics>;
export type AppStatusValue = (typeof APP_STATUSES)[number];

/** Which generated front end GET /api/app/{slug}/download-frontend builds. */
export const FrontendType = Type.Union([Type.Literal('completion'), Type.Literal('chat')]);
export type FrontendType = Static<typeof FrontendType>;

export const FrontendDownloadQuery = Type.Object(
  {
    type: Type.Optional(
      Type.Union([Type.Literal('completion'), Type.Literal('chat')], {
        description: 'Which app to generate for a prompt app; absent: chat for a chat-mode prompt, otherwise completion. Workflow apps follow their Dify mode.',
      }),
    ),
  },
  { additionalProperties: true },
);
