import { type Static, Type } from 'typebox';

export const ProfileUser = Type.Object({
  id: Type.String({ format: 'uuid' }),
  username: Type.String(),
  email: Type.String({ description: 'Read only: it comes from the identity provider' }),
  first_name: Type.String(),
  last_name: Type.String(),
  display_name: Type.String(),
  is_active: Type.Boolean(),
  date_joined: Type.String({ format: 'date-time' }),
});

export const Creator = Type.Object({
  display_name: Type.String(),
  plan: Type.String({ description: 'Creator plan; new accounts are on "free"' }),
  credits: Type.Number({ description: 'Credit balance in dollars (two decimals), for display' }),
  credits_cents: Type.Integer({ description: 'Credit balance in integer cents' }),
});

export const Profile = Type.Object({
  user: ProfileUser,
  creator: Type.Union([Creator, Type.Null()]),
});

const USERNAME_PATTERN = '^[A-Za-z0-9_.@+-]*$';

/** The editable user fields; the rest of the user object may be sent back unchanged and is ignored. */
export const ProfileUserUpdate = Type.Object(
  {
    first_name: Type.Optional(Type.String({ maxLength: 150 })),
    last_name: Type.Optional(Type.String({ maxLength: 150 })),
    display_name: Type.Optional(Type.String({ maxLength: 100 })),
    username: Type.Optional(Type.String({ maxLength: 150, pattern: USERNAME_PATTERN })),
    email: Type.Optional(Type.String({ description: 'Must equal the current e-mail: it cannot be changed here' })),
    id: Type.Optional(Type.String()),
    is_active: Type.Optional(Type.Boolean()),
    date_joined: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const CreatorUpdate = Type.Object({ display_name: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const ProfileUpdate = Type.Object(
  {
    user: Type.Optional(ProfileUserUpdate),
    creator: Type.Optional(Type.Union([CreatorUpdate, Type.Null()])),
  },
  { additionalProperties: false },
);

export const CreatorMe = Type.Object({
  id: Type.String({ format: 'uuid' }),
  display_name: Type.String(),
  plan: Type.String(),
  credits: Type.Number({ description: 'Dollars' }),
  credits_cents: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});

export const CreatorPublic = Type.Object({
  id: Type.String({ format: 'uuid' }),
  display_name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const CreatorList = Type.Object({
  count: Type.Integer(),
  results: Type.Array(CreatorPublic),
  has_more: Type.Boolean({ description: 'True when another page follows' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page' }),
});

export type Profile = Static<typeof Profile>;
export type ProfileUpdate = Static<typeof ProfileUpdate>;
export type CreatorMe = Static<typeof CreatorMe>;
