import type { Logger } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { BindingRepository, ContextRef } from '../../src/identity/binding-repository.js';
import { IdentityService } from '../../src/identity/identity-service.js';
import type { LmsConnector } from '../../src/lms/connector.js';
import type { Principal } from '../../src/identity/principal.js';

/**
 * The launch's identity check asks the database about a context only until this process knows its proven id: a binding
 * never changes, so afterwards the claimed course id either is that id or contradicts it.
 */

const student = (courseId: string, ltiContextId = 'context-a'): Principal => ({
  kind: 'student',
  lmsUserId: '3',
  ltiSubject: 'subject-3',
  issuer: 'https://lms.example.edu',
  deploymentId: '1:deployment',
  ltiContextId,
  courseId,
});

function service(bound: Record<string, string>, userBindings: { lmsUserId: string; ltiSubject: string }[] = []) {
  const checkContext = vi.fn(async (context: ContextRef) => {
    const id = bound[context.ltiContextId];
    const boundContext = Object.entries(bound).find(([, lmsId]) => lmsId === context.lmsId)?.[0];
    const proven = id === context.lmsId;
    return { contextProven: proven, contextConflict: (id !== undefined && !proven) || (boundContext !== undefined && boundContext !== context.ltiContextId) };
  });
  const users = { userBindings: vi.fn(async () => userBindings) };
  const identity = new IdentityService(
    { checkContext } as unknown as BindingRepository,
    users,
    {} as LmsConnector,
    { warn: vi.fn(), info: vi.fn() } as unknown as Logger,
  );
  return { identity, checkContext, users };
}

describe('the launch identity check', () => {
  it('queries a context until it is proven here, then decides from what it knows', async () => {
    const { identity, checkContext, users } = service({ 'context-a': '101' });
    expect(await identity.checkLaunch(student('101'))).toBeNull();
    expect(await identity.checkLaunch(student('101'))).toBeNull();
    // The proven context contradicts another claimed id without asking again.
    expect(await identity.checkLaunch(student('102'))).toBe('context');
    expect(checkContext).toHaveBeenCalledTimes(1);
    // The user's bindings can change (a grant is stored or replaced): they are read for every launch.
    expect(users.userBindings).toHaveBeenCalledTimes(3);
  });

  it('asks again about a context it has not proven, and about an unproven one every time', async () => {
    const { identity, checkContext } = service({ 'context-a': '101' });
    expect(await identity.checkLaunch(student('101'))).toBeNull();
    expect(await identity.checkLaunch(student('101', 'context-b'))).toBe('context');
    expect(await identity.checkLaunch(student('555', 'context-c'))).toBeNull();
    expect(await identity.checkLaunch(student('555', 'context-c'))).toBeNull();
    expect(checkContext).toHaveBeenCalledTimes(4);
  });

  it('still refuses a user id bound to another subject', async () => {
    const { identity } = service({ 'context-a': '101' }, [{ lmsUserId: '3', ltiSubject: 'someone-else' }]);
    expect(await identity.checkLaunch(student('101'))).toBe('user');
    expect(await identity.checkLaunch(student('101'))).toBe('user');
  });
});
