import { type Static, Type } from 'typebox';

export const BearerToken = Type.Object(
  {
    token: Type.String({ description: 'send as `Authorization: Bearer <token>`; same rights as the minting app key' }),
    tokenExpiresAt: Type.Integer({
      description: 'Unix seconds; one hour after minting. Refused (401) from then on, or once the key is revoked',
    }),
  },
  { title: 'BearerToken' },
);
export type BearerToken = Static<typeof BearerToken>;
