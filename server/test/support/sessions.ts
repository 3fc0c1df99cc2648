import type { FastifyInstance } from 'fastify';
import { opaqueId } from '../../../e2e/src/lms/ids.js';
import type { Principal } from '../../src/identity/principal.js';
import { randomToken } from '../../src/security/random-token.js';
import { SESSION_COOKIE_NAME } from '../../src/security/session-cookie.js';
import type { SessionData } from '../../src/security/session.js';

export const ISSUER = 'https://canvas.instructure.com';
export const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';

const NAMED_SUBJECTS: Readonly<Record<string, string>> = { '1': 'sub-admin', '2': 'sub-instructor', '3': 'sub-student' };

/** The test principals' LTI subject per LMS user id: grants stored for a user are bound to it. */
export function subjectFor(lmsUserId: string | number): string {
  return NAMED_SUBJECTS[String(lmsUserId)] ?? `sub-user-${lmsUserId}`;
}

/** The signed context id the development LMS gives a course or account (its opaque 40-hex id). */
export function contextIdFor(kind: 'course' | 'account', id: string | number): string {
  return opaqueId(kind, id);
}

/** Whom a test grant acts for: the user and the subject its stored grant is bound to. */
export function holderFor(lmsUserId: string | number): { lmsUserId: string; issuer: string; ltiSubject: string } {
  return { lmsUserId: String(lmsUserId), issuer: ISSUER, ltiSubject: subjectFor(lmsUserId) };
}

type Of<K extends Principal['kind']> = Extract<Principal, { kind: K }>;

/** A course principal of the given kind, with the subject and context the development LMS would sign for it. */
function coursePrincipal<K extends 'instructor' | 'student'>(kind: K, lmsUserId: string, overrides: Partial<Of<K>>): Of<K> {
  const courseId = overrides.courseId ?? '101';
  const principal = {
    kind,
    lmsUserId,
    ltiSubject: subjectFor(lmsUserId),
    issuer: ISSUER,
    deploymentId: DEPLOYMENT_ID,
    ltiContextId: contextIdFor('course', courseId),
    courseId,
  };
  return { ...principal, ...overrides } as Of<K>;
}

export function instructor(overrides: Partial<Of<'instructor'>> = {}): Of<'instructor'> {
  return coursePrincipal('instructor', overrides.lmsUserId ?? '2', overrides);
}

export function student(overrides: Partial<Of<'student'>> = {}): Of<'student'> {
  return coursePrincipal('student', overrides.lmsUserId ?? '3', overrides);
}

export function admin(overrides: Partial<Of<'admin'>> = {}): Of<'admin'> {
  const lmsUserId = overrides.lmsUserId ?? '1';
  const accountId = overrides.accountId ?? '1';
  return {
    kind: 'admin',
    lmsUserId,
    ltiSubject: subjectFor(lmsUserId),
    issuer: ISSUER,
    deploymentId: DEPLOYMENT_ID,
    ltiContextId: contextIdFor('account', accountId),
    accountId,
    ...overrides,
  };
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
export function sessionFor(
  app: FastifyInstance,
  principal: Principal,
  options: {
    launchTarget?: string;
    lmsReturnUrl?: string;
    sid?: string;
    createdAt?: number;
    exbLaunches?: Record<string, number>;
    locale?: SessionData['locale'];
    generation?: number;
  } = {},
): TestSession {
  const session: SessionData = {
    sid: options.sid ?? randomToken(),
    principal,
    launchTarget: options.launchTarget ?? '/lti/launch',
    ...(options.lmsReturnUrl ? { lmsReturnUrl: options.lmsReturnUrl } : {}),
    exbLaunches: options.exbLaunches ?? {},
    ...(options.locale ? { locale: options.locale } : {}),
    createdAt: options.createdAt ?? Date.now(),
    generation: options.generation ?? 0,
  };
  const sealed = app.encodeSecureSession(app.createSecureSession({ data: session }));
  // The sealed value contains `;`, so it travels percent-encoded as the cookie plugin itself sends it.
  return { session, cookie: `${SESSION_COOKIE_NAME}=${encodeURIComponent(sealed)}` };
}
