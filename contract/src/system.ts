// Runtime settings the web app reads at start (GET /config) and the health check (GET /health).
import { type Static, Type } from 'typebox';

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
});
export type RuntimeConfig = Static<typeof RuntimeConfig>;

export const HealthOk = Type.Object({ status: Type.Literal('ok'), database: Type.String() });
export type HealthOk = Static<typeof HealthOk>;

export const HealthUnavailable = Type.Object({ status: Type.Literal('unavailable'), database: Type.String() });
export type HealthUnavailable = Static<typeof HealthUnavailable>;

export type Health = HealthOk | HealthUnavailable;
