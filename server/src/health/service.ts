// What GET /api/health and GET /api/config answer: whether the database answers, and the runtime
// settings the web app may see (the browser sees nothing else of the configuration), with the
// models the built-in demo answers.
import type { HealthOk, HealthUnavailable, RuntimeConfig } from '@tollbooth/contract';
import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import type { ModelRouter } from '../providers/registry.ts';

export function createHealthService({ config, db, models }: { config: Config; db: Database; models: ModelRouter }) {
  return {
    async checkDatabase(): Promise<HealthOk | HealthUnavailable> {
      try {
        await db.query('SELECT 1');
        return { status: 'ok', database: db.kind };
      } catch {
        return { status: 'unavailable', database: db.kind };
      }
    },

    runtimeConfig(): RuntimeConfig {
      return {
        product_name: config.productName,
        oidc: {
          issuer: config.oidc.issuer,
          client_id: config.oidc.clientId,
          audience: config.oidc.audience,
          provider_name: config.oidc.providerName,
          embedded: config.oidc.embedded,
          scopes: 'openid profile email offline_access',
        },
        stripe_publishable_key: config.stripe.secretKey ? config.stripe.publishableKey : null,
        public_url: config.publicUrl,
        signup_credits_cents: config.signupCreditsCents,
        platform_fee_bps: config.platformFeeBps,
        demo_models: models.demoModels(),
        models: models.offeredModels(),
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
