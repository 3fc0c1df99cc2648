import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentIdMatchesCourse, isLmsId, parseContentId, type ParsedContentId } from '@exb/shared/content-id.js';
import type { CoursePrincipal } from '../domain/principal.js';
import { RETRY_AFTER_SECONDS } from '../domain/student/budgets.js';
import { readSession, type SessionData } from '../security/session.js';
import { errorBody } from './errors.js';
import { escapeHtml, scriptSafeJson } from './shell.js';

/** Shared pieces of the student exam-browser routes (`exb-config`, `exb-proof`, `exb-exit`, `exb-student`). */

/**
 * Headers of every response that carries, or answers a request for, a secret (proof tokens, access codes, exit
 * grants): never stored by a browser or proxy, never sniffed, never sent on as a referrer.
 */
export const SENSITIVE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store, max-age=0',
  pragma: 'no-cache',
  expires: '0',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** A route hook, so responses the handler never writes (body-parser errors, 404s of the router) carry them too. */
export async function sensitiveResponse(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.headers(SENSITIVE_HEADERS);
}

export interface AssessmentParams {
  readonly courseId: string;
  readonly contentId: string;
  readonly content: ParsedContentId;
}

/** Canonical course and content ids of this course; `null` for anything else, answered without a lookup. */
export function assessmentParams(courseId: unknown, contentId: unknown): AssessmentParams | null {
  if (!isLmsId(courseId)) return null;
  const content = parseContentId(contentId);
  if (content === null || !contentIdMatchesCourse(content, courseId)) return null;
  return { courseId, contentId: contentId as string, content };
}

/** The session's instructor or student principal when it belongs to `courseId`. */
export function coursePrincipal(request: FastifyRequest, courseId: unknown): { session: SessionData; principal: CoursePrincipal } | null {
  const session = readSession(request);
  if (session === null) return null;
  const { principal } = session;
  if (principal.kind === 'admin' || principal.courseId !== courseId) return null;
  return { session, principal };
}

export function sendRateLimited(reply: FastifyReply, message: string): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(RETRY_AFTER_SECONDS))
    .header('cache-control', reply.getHeader('cache-control') ?? 'no-store')
    .send(errorBody('RATE_LIMITED', message));
}

export function sendPrincipalRequired(reply: FastifyReply): FastifyReply {
  return reply
    .code(403)
    .header('cache-control', 'no-store')
    .send(errorBody('LTI_PRINCIPAL_REQUIRED', 'Open this quiz from your course in the LMS; this session does not belong to it.'));
}

/** The contract's 404 without an error code: no configuration or setting for the assessment. */
export function sendNoSetting(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(404).send({ success: false, message });
}

export const CROSS_SITE_CODE = 'CROSS_SITE_REQUEST';
export const CROSS_SITE_MESSAGE = 'This request can only be made from the tool itself. Open the tool from your course in the LMS.';

/** The URL as the exam browser hashes it: everything before the first `#`. */
export function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

export interface PageLink {
  readonly href: string;
  readonly text: string;
  /** Open in the top window (links back into the LMS). */
  readonly top?: boolean;
}

/**
 * A page of the exam-browser flow that works without the client bundle (the exam browser may block scripts of other
 * hosts, and these pages must work in any state). Data for tests and scripts travels in the usual bootstrap element.
 */
export function exbPage(options: {
  title: string;
  paragraphs: readonly string[];
  links?: readonly PageLink[];
  bootstrap: { view: string } & Record<string, unknown>;
  /** Extra head markup, already escaped. */
  head?: string;
}): string {
  const links = (options.links ?? [])
    // Links back into the LMS leave the tool frame, so the LMS is not shown inside itself.
    .map((link) => `<p><a class="button" href="${escapeHtml(link.href)}"${link.top ? ' target="_top"' : ''}>${escapeHtml(link.text)}</a></p>`)
    .join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(options.title)}</title>${options.head ?? ''}` +
    '<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#2d3b45}' +
    'a.button{display:inline-block;padding:.6rem 1rem;border-radius:.3rem;background:#0374b5;color:#fff;text-decoration:none}</style>' +
    `</head><body><main><h1>${escapeHtml(options.title)}</h1>` +
    options.paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join('') +
    links +
    `</main><script id="exb-bootstrap" type="application/json">${scriptSafeJson(options.bootstrap)}</script></body></html>`
  );
}
