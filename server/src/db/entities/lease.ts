import { defineEntity, p } from '@mikro-orm/core';

/** A named lock with an owner and an expiry, so a crashed holder never blocks others for longer than its lease. */
export const Lease = defineEntity({
  name: 'Lease',
  tableName: 'lease',
  properties: {
    name: p.text().primary(),
    owner: p.text(),
    expiresAt: p.datetime(),
  },
});
