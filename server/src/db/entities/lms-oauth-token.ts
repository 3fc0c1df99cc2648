import { defineEntity, p } from '@mikro-orm/core';

/**
 * The one LMS OAuth grant per LMS user (see the migration for the storage rules). Reads and writes go through
 * `oauth/token-repository.ts` in raw SQL, because sealing binds each ciphertext to the row id and the upsert must be
 * atomic; the entity documents the table for the ORM.
 */
export const LmsOAuthToken = defineEntity({
  name: 'LmsOAuthToken',
  tableName: 'lms_oauth_token',
  properties: {
    id: p.uuid().primary(),
    lmsUserId: p.text().unique(),
    grantType: p.text(),
    scopes: p.array().columnType('text[]'),
    lmsUserName: p.text().nullable(),
    lmsGlobalUserId: p.text().nullable(),
    lmsRegion: p.text().nullable(),
    accountId: p.text().nullable(),
    /** The `(issuer, sub)` whose authorization proved `lmsUserId`; the grant is used for that subject only. */
    ltiIssuer: p.text().nullable(),
    ltiSubject: p.text().nullable(),
    tokenKeyId: p.text().nullable(),
    accessTokenCiphertext: p.blob().nullable(),
    refreshTokenCiphertext: p.blob().nullable(),
    legacyAccessToken: p.text().nullable(),
    legacyRefreshToken: p.text().nullable(),
    accessTokenExpiresAt: p.datetime().nullable(),
    reauthorizationRequiredAt: p.datetime().nullable(),
    version: p.integer().default(1),
    authorizedAt: p.datetime().defaultRaw('now()'),
    refreshedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
