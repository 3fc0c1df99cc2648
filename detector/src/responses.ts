/**
 * Parsers for service responses. Anything unexpected becomes "no result": the scripts then do nothing rather than act
 * on a half-understood answer.
 */
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';

export interface Tool {
  readonly id: string;
  readonly label: string;
  readonly url: string;
}

export interface Redemption {
  /** The LMS access code, or `null` when the server released none. */
  readonly accessCode: string | null;
  readonly exitGrant: string | null;
  readonly exitGrantExpiresInSeconds: number;
  readonly tools: readonly Tool[];
}

export type ProofOutcome =
  | { readonly ok: true; readonly proofToken: string }
  | { readonly ok: false; readonly status: number; readonly errorCode: string | null };

export const EXIT_GRANT_LIFETIME_SECONDS = 43200;
const MAX_TOOLS = 50;
const MAX_TOOL_ID_LENGTH = 128;
const MAX_TOOL_LABEL_LENGTH = 200;
const MAX_ACCESS_CODE_LENGTH = 256;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function boundedText(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text.length > 0 && text.length <= max && !CONTROL_CHARACTER.test(text) ? text : null;
}

/** Enforcement is confirmed only by exactly `success: true` and `exbRequired: true`. */
export function isEnforcementRequired(status: number, body: unknown): boolean {
  const r = record(body);
  return status === 200 && r !== null && r.success === true && r.exbRequired === true;
}

export function parseProofResponse(status: number, body: unknown): ProofOutcome {
  const r = record(body);
  if (status === 200 && r !== null && r.success === true && isBase64UrlToken(r.proofToken)) {
    return { ok: true, proofToken: r.proofToken };
  }
  const errorCode = r !== null && typeof r.error_code === 'string' ? r.error_code.slice(0, 64) : null;
  return { ok: false, status, errorCode };
}

export function parseRedemptionResponse(status: number, body: unknown, baseUrl: string): Redemption | null {
  const r = record(body);
  if (status !== 200 || r === null || r.success !== true) return null;
  const code = r.accessCode;
  // Codes are opaque: keep them byte for byte, only refusing values no LMS prompt could take.
  const accessCode =
    typeof code === 'string' && code.length > 0 && code.length <= MAX_ACCESS_CODE_LENGTH && !CONTROL_CHARACTER.test(code)
      ? code
      : null;
  const exitGrant = isBase64UrlToken(r.exitGrant) ? r.exitGrant : null;
  const lifetime = r.exitGrantExpiresInSeconds;
  const exitGrantExpiresInSeconds =
    typeof lifetime === 'number' && Number.isFinite(lifetime) && lifetime > 0 && lifetime <= EXIT_GRANT_LIFETIME_SECONDS
      ? lifetime
      : EXIT_GRANT_LIFETIME_SECONDS;
  return { accessCode, exitGrant, exitGrantExpiresInSeconds, tools: parseTools(r.tools, baseUrl) ?? [] };
}

/** The tools of a tools-route response, or `null` when the response is not a success (keep what is shown). */
export function parseToolsResponse(status: number, body: unknown, baseUrl: string): Tool[] | null {
  const r = record(body);
  if (status !== 200 || r === null || r.success !== true) return null;
  return parseTools(r.tools, baseUrl);
}

function parseTools(value: unknown, baseUrl: string): Tool[] | null {
  if (!Array.isArray(value)) return null;
  const tools: Tool[] = [];
  for (const item of value.slice(0, MAX_TOOLS)) {
    const tool = parseTool(item, baseUrl);
    if (tool !== null) tools.push(tool);
  }
  return tools;
}

export function parseTool(value: unknown, baseUrl: string): Tool | null {
  const r = record(value);
  if (r === null) return null;
  const id = boundedText(r.id, MAX_TOOL_ID_LENGTH);
  const label = boundedText(r.label, MAX_TOOL_LABEL_LENGTH);
  const url = safeToolUrl(r.url, baseUrl);
  return id !== null && label !== null && url !== null ? { id, label, url } : null;
}

/**
 * Tool links open HTTPS pages; plain HTTP only on the service's own origin (the video player of a development
 * service). Script, data and other schemes never become links.
 */
export function safeToolUrl(value: unknown, baseUrl: string): string | null {
  if (typeof value !== 'string' || value.length > 2048) return null;
  let url: URL;
  let service: URL;
  try {
    url = new URL(value);
    service = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.username !== '' || url.password !== '') return null;
  if (url.protocol === 'https:') return url.href;
  if (url.protocol === 'http:' && url.origin === service.origin) return url.href;
  return null;
}
