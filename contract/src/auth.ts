import { type Static, Type } from 'typebox';

export const SignInStart = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  client_id: Type.String(),
  audience: Type.String(),
  scopes: Type.String(),
  prompt: Type.Union([Type.Literal('login'), Type.Literal('create')], { description: 'Pass as the prompt parameter of the authorization request' }),
  provider_name: Type.String(),
});

export const LogoutResult = Type.Object({
  end_session_endpoint: Type.Union([Type.String(), Type.Null()], { description: 'Send the browser here (RP-initiated logout) to end the provider session' }),
});

export const Roles = Type.Object({
  roles: Type.Array(Type.String(), { description: 'Roles of the signed-in user: "user" always, "creator" when a creator profile exists' }),
});

export type SignInStart = Static<typeof SignInStart>;
export type LogoutResult = Static<typeof LogoutResult>;
export type Roles = Static<typeof Roles>;
