// Shapes of the Tollbooth API responses this client reads. They mirror the server contract
// (GET /api/config, /api/auth/*) until @tollbooth/contract exports them.

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
