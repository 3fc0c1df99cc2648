import { defineEntity, p } from '@mikro-orm/core';

/** A one-time token: stored under the SHA-256 of the token, payload encrypted, consumed by one conditional UPDATE. */
export const OneTimeToken = defineEntity({
  name: 'OneTimeToken',
  tableName: 'one_time_token',
  properties: {
    id: p.text().primary(),
    purpose: p.text(),
    payload: p.blob(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
