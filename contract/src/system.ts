// Runtime settings the web app reads at start (GET /config) and the health check (GET /health).
import { type Static, Type } from 'typebox';
import { DemoModel } from './demo-model.ts';
import { ProviderKind, providerKindSchema } from './provider-kind.ts';

export const RuntimeConfig = Type.Object({
  product_name: Type.String(),
  oidc: Type.Object({
    issuer: Type.String(),
    client_id: Type.String(),
    audience: Type.String(),
    provider_name: Type.String(),
    embedded: Type.Boolean(),
    scopes: Type.String(),
  }),
  stripe_publishable_key: Type.Union([Type.String(), Type.Null()]),
  public_url: Type.String(),
  signup_credits_cents: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Credits (US cents) every new account is given (SIGNUP_CREDITS_CENTS); the first dashboard says so' }),
  ),
  platform_fee_bps: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 10_000,
      description: "The platform's fee on each paid call, in basis points (PLATFORM_FEE_BPS): creators' margins show it",
    }),
  ),
  demo_models: Type.Array(DemoModel, {
    description: 'Models this server answers with the built-in demo model (their provider is not configured); such calls are never charged',
  }),
  models: Type.Optional(
    Type.Array(Type.Object({ name: Type.String(), provider: providerKindSchema(), demo: Type.Boolean() }), {
      description:
        'The models an app can choose here, in order: served by a configured provider (with a known price) or by the demo model (demo: true); names that are aliases of an earlier one are left out',
    }),
  ),
});
export type RuntimeConfig = Static<typeof RuntimeConfig>;

export const HealthOk = Type.Object({ status: Type.Literal('ok'), database: Type.String() });
export type HealthOk = Static<typeof HealthOk>;

export const HealthUnavailable = Type.Object({ status: Type.Literal('unavailable'), database: Type.String() });
export type HealthUnavailable = Static<typeof HealthUnavailable>;

export type Health = HealthOk | HealthUnavailable;

/** GET /livez: the process answers (nothing else is asked). */
export const Live = Type.Object({ status: Type.Literal('live') });
export type Live = Static<typeof Live>;

/** GET /readyz 200: this process takes calls (database reachable, every migration applied, not draining). */
export const Ready = Type.Object({ status: Type.Literal('ready'), database: Type.String() });
export type Ready = Static<typeof Ready>;

/** GET /readyz 503: why this process should get no calls now. */
export const NotReady = Type.Object({
  status: Type.Literal('unavailable'),
  reason: Type.Union([Type.Literal('draining'), Type.Literal('database_unreachable'), Type.Literal('migrations_pending')]),
  message: Type.String(),
});
export type NotReady = Static<typeof NotReady>;

/** One row of the model table: which provider serves a model name, under which upstream model id. */
export const ModelTableEntry = Type.Object(
  {
    provider: ProviderKind,
    upstreamModel: Type.String({ minLength: 1 }),
    /** The operator's own prices (US dollars per million input and output tokens, per image), overriding the price dataset's. */
    prices: Type.Optional(
      Type.Object(
        { input: Type.Number({ minimum: 0 }), output: Type.Number({ minimum: 0 }), image: Type.Optional(Type.Number({ minimum: 0 })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ModelTableEntry = Static<typeof ModelTableEntry>;

/** The model table (MODEL_TABLE's JSON): model name → entry; entries replace or add to the built-in table. */
export const ModelTable = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), ModelTableEntry);
export type ModelTable = Readonly<Record<string, ModelTableEntry>>;
