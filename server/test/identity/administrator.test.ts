import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_AND_APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { DomainError } from '../../src/domain-error.js';
import { BindingRepository } from '../../src/identity/binding-repository.js';
import { IdentityService } from '../../src/identity/identity-service.js';
import { LmsAuthorizationRequiredError } from '../../src/lms/errors.js';
import { createLogger } from '../../src/logger.js';
import { createOAuthTestbed, storeGrant, type OAuthTestbed } from '../support/oauth-testbed.js';
import { admin, contextIdFor } from '../support/sessions.js';

/**
 * An administrator principal comes from a signed account context with a signed administrator role, but its root-admin
 * flag and account id are custom values; before any administrator action the account is confirmed through the
 * administrator's own grant against the mocked LMS.
 */
let bed: OAuthTestbed;
let now = Date.now();
const identity = () => {
  const { oauth, lms } = bed.services();
  return new IdentityService(new BindingRepository(bed.t.db.orm), oauth.tokens, lms, createLogger('silent'), () => now);
};

beforeAll(async () => {
  bed = await createOAuthTestbed({ provenContexts: false });
});
afterAll(() => bed.close());
beforeEach(async () => {
  bed.lms.reset();
  await bed.t.db.orm.em.getConnection().execute('delete from lms_oauth_token; delete from lti_context_binding', [], 'run');
});

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'confirmed',
    (error: unknown) => error,
  );
}

describe('administrator confirmation', () => {
  it('confirms the root-account administrator through their grant, and records the account binding', async () => {
    await storeGrant(bed, 1, ADMIN_AND_APPLICATION_SCOPES);
    const service = identity();
    expect(await refusal(service.requireAdministrator(admin()))).toBe('confirmed');
    expect(await service.contextProven(admin())).toBe(true);
    expect(bed.lms.calls.filter((call) => call.path.startsWith('/api/v1/accounts/lti_context_id:')).length).toBe(1);
    // Confirmed for a while: no LMS call for the next action.
    await service.requireAdministrator(admin());
    expect(bed.lms.calls.filter((call) => call.path.startsWith('/api/v1/accounts/lti_context_id:')).length).toBe(1);
  });

  it('asks the LMS again once the confirmation is old, so a removed administrator is stopped', async () => {
    await storeGrant(bed, 1, ADMIN_AND_APPLICATION_SCOPES);
    const service = identity();
    await service.requireAdministrator(admin());
    bed.lms.state.accountAdmins.clear();
    now += 10 * 60 * 1000;
    const error = await refusal(service.requireAdministrator(admin()));
    expect(error).not.toBe('confirmed');
  });

  it('refuses a sub-account administrator whose launch claimed the root-admin flag', async () => {
    await storeGrant(bed, 8, ADMIN_AND_APPLICATION_SCOPES);
    // Launched from sub-account 2's navigation: the signed context is account 2, the custom root account id is 1.
    const forged = admin({ lmsUserId: '8', ltiContextId: contextIdFor('account', 2), accountId: '1' });
    const error = await refusal(identity().requireAdministrator(forged));
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ status: 403, errorCode: 'ADMIN_NOT_CONFIRMED' });
  });

  it('refuses an account id that is not the signed context’s account', async () => {
    await storeGrant(bed, 1, ADMIN_AND_APPLICATION_SCOPES);
    const error = await refusal(identity().requireAdministrator(admin({ accountId: '2' })));
    expect(error).toMatchObject({ status: 403, errorCode: 'ADMIN_NOT_CONFIRMED' });
  });

  it('acts with no grant until the administrator’s own authorization proved the user id', async () => {
    expect(await refusal(identity().requireAdministrator(admin()))).toBeInstanceOf(LmsAuthorizationRequiredError);
    await storeGrant(bed, 1, ADMIN_AND_APPLICATION_SCOPES);
    // The grant of user 1 was stored for another subject: it does not prove this one.
    const other = admin({ ltiSubject: 'someone-else' });
    expect(await refusal(identity().requireAdministrator(other))).toBeInstanceOf(LmsAuthorizationRequiredError);
    expect(bed.lms.calls.filter((call) => call.path.startsWith('/api/v1/accounts/')).length).toBe(0);
  });
});
