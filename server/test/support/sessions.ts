import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../src/domain/principal.js';
import { randomToken } from '../../src/security/random-token.js';
import { SESSION_COOKIE_NAME } from '../../src/security/session-cookie.js';
import type { SessionData } from '../../src/security/session.js';

export const ISSUER = 'https://canvas.instructure.com';
export const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';

export function instructor(overrides: Partial<Extract<Principal, { kind: 'instructor' }>> = {}): Principal {
  return { kind: 'instructor', lmsUserId: '2', ltiSubject: 'sub-instructor', issuer: ISSUER, deploymentId: DEPLOYMENT_ID, courseId: '101', ...overrides };
}

export function student(overrides: Partial<Extract<Principal, { kind: 'student' }>> = {}): Principal {
  return { kind: 'student', lmsUserId: '3', ltiSubject: 'sub-student', issuer: ISSUER, deploymentId: DEPLOYMENT_ID, courseId: '101', ...overrides };
}

export function admin(overrides: Partial<Extract<Principal, { kind: 'admin' }>> = {}): Principal {
  return { kind: 'admin', lmsUserId: '1', ltiSubject: 'sub-admin', issuer: ISSUER, deploymentId: DEPLOYMENT_ID, accountId: '1', ...overrides };
}

export interface TestSession {
  session: SessionData;
  /** The `cookie` request header carrying the session. */
  cookie: string;
}

/**
 * A session as a verified launch leaves it, sealed with the application's own secure-session key, so route tests can
 * act as any principal without a launch. Nothing in the application is changed for it.
 */
export function sessionFor(app: FastifyInstance, principal: Principal, options: { launchTarget?: string; lmsReturnUrl?: string; sid?: string } = {}): TestSession {
  const session: SessionData = {
    sid: options.sid ?? randomToken(),
    principal,
    launchTarget: options.launchTarget ?? '/lti/launch',
    ...(options.lmsReturnUrl ? { lmsReturnUrl: options.lmsReturnUrl } : {}),
    exbLaunches: {},
    createdAt: Date.now(),
  };
  const sealed = app.encodeSecureSession(app.createSecureSession({ data: session }));
  // The sealed value contains `;`, so it travels percent-encoded as the cookie plugin itself sends it.
  return { session, cookie: `${SESSION_COOKIE_NAME}=${encodeURIComponent(sealed)}` };
}
