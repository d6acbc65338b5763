// Shapes of the Tollbooth API responses this client reads. They mirror the server contract
// (GET /api/config, /api/auth/*, /api/app/*). The application shapes are copies of
// contract/src/apps.ts: the web project cannot import @tollbooth/contract until web/tsconfig.json
// allows its `.ts` import paths (allowImportingTsExtensions or a project reference).

export interface RuntimeConfig {
  product_name: string;
  oidc: {
    issuer: string;
    client_id: string;
    audience: string;
    provider_name: string;
    embedded: boolean;
    scopes: string;
  };
  stripe_publishable_key: string | null;
  public_url: string;
}

export interface ProfileUser {
  id: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  display_name: string;
  is_active: boolean;
  date_joined: string;
}

export interface CreatorProfile {
  display_name: string;
  plan: string;
  /** Dollars, e.g. 5 for $5.00. */
  credits: number;
  /** The same balance in integer cents. */
  credits_cents: number;
}

export interface Profile {
  user: ProfileUser;
  creator: CreatorProfile | null;
}

export interface ProfileUpdate {
  user: ProfileUser;
  creator: { display_name: string } | null;
}

export interface LogoutResponse {
  end_session_endpoint: string | null;
}

export type AppType = 'prompt' | 'workflow';
export type InteractionMode = 'completion' | 'chat';
export type Visibility = 'private' | 'public' | 'embed';
export type AppStatus = 'draft' | 'live' | 'archived';

export const APP_TYPES: readonly AppType[] = ['prompt', 'workflow'];
export const INTERACTION_MODES: readonly InteractionMode[] = ['completion', 'chat'];
export const VISIBILITIES: readonly Visibility[] = ['private', 'public', 'embed'];
export const APP_STATUSES: readonly AppStatus[] = ['draft', 'live', 'archived'];

/** A workflow app's provider settings as the owner sees them; the API key is masked. */
export interface ProviderConfigView {
  app_id: string;
  api_key: string;
  base_url: string;
}

/** GET /api/app/ and /api/app/{slug}/. */
export interface Application {
  id: string;
  name: string;
  slug: string;
  description: string;
  type: AppType;
  interaction_mode: InteractionMode;
  visibility: Visibility;
  status: AppStatus;
  /** Price per API call in integer cents. */
  price_cents: number;
  created_at: string;
  updated_at: string;
  creator_name: string;
  is_owner: boolean;
  provider_config?: ProviderConfigView | null;
}

/** POST /api/app/. */
export interface ApplicationCreate {
  name: string;
  description?: string;
  type: AppType;
  interaction_mode?: InteractionMode;
  visibility?: Visibility;
  price_cents?: number;
  provider_config?: { app_id: string; api_key: string; base_url?: string };
}

/** PATCH /api/app/{slug}/. */
export interface ApplicationUpdate {
  name?: string;
  description?: string;
  visibility?: Visibility;
  status?: AppStatus;
  price_cents?: number;
  interaction_mode?: InteractionMode;
}

/** GET /api/app/{slug}/analytics/usage/. */
export interface UsageAnalytics {
  total_invocations: number;
  total_users: number;
  /** Dollars, computed from integer cents. */
  total_revenue: number;
  total_revenue_cents: number;
  data: Array<{ date: string; invocations: number; revenue: number }>;
}
