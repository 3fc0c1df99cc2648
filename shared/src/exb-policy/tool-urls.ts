/** Tool launch addresses: video links become the service's player route, anything else an exact HTTPS URL. */
import { normalizeServiceBaseUrl } from '../detector-config-rules.js';
import { fail, type PolicyPath, type PolicyResult } from './errors.js';
import { exactRuleMismatch, MISMATCH_MESSAGES, type PolicyCheck } from './exact-rule-filter.js';
import { policyMessage, refOf, type PolicyMessageRef } from './messages.js';
import { normalizeExactHttpsUrl } from './exact-urls.js';
import { EXB_POLICY_LIMITS } from './limits.js';
import { INVISIBLE_OR_CONTROL, parseUrl } from './text.js';
import { ErrorCodes } from '../error-codes.js';
import { VIDEO_PLAYER_ROUTE } from '../service-paths.js';

const VIDEO_ID_PATTERN = /^[A-Za-z0-9_-]{11}$/;

/** The service route that plays one video inside the exam; `{base_url}/exb/tool/video/<id>`. */
export const VIDEO_TOOL_PATH_PREFIX = VIDEO_PLAYER_ROUTE.path.slice(0, -'*'.length);

const WATCH_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com']);
const EMBED_HOSTS = new Set([...WATCH_HOSTS, 'youtube-nocookie.com', 'www.youtube-nocookie.com']);

/**
 * The 11-character video id of a video link, or `null`. Recognized: `youtube.com/watch?v=ID`, `youtu.be/ID` (share),
 * `youtube.com/shorts/ID`, `youtube.com/embed/ID` and `youtube-nocookie.com/embed/ID`, on `www.` and `m.` hosts too,
 * over http or https, with any further query (timestamps, share tracking), which the player route drops.
 */
export function parseVideoId(url: unknown): string | null {
  if (typeof url !== 'string' || url.length > EXB_POLICY_LIMITS.urlLength) return null;
  const raw = url.trim();
  if (!/^https?:\/\//i.test(raw) || INVISIBLE_OR_CONTROL.test(raw) || raw.includes('\\')) return null;
  const parsed = parseUrl(raw);
  if (parsed === null || parsed.username !== '' || parsed.password !== '' || parsed.port !== '') return null;
  const host = parsed.hostname;
  const segments = parsed.pathname.replace(/\/$/, '').split('/').slice(1);
  let id: string | undefined;
  if (host === 'youtu.be' && segments.length === 1) {
    id = segments[0];
  } else if (WATCH_HOSTS.has(host) && segments.length === 1 && segments[0] === 'watch') {
    const values = parsed.searchParams.getAll('v');
    id = values.length === 1 ? values[0] : undefined;
  } else if (WATCH_HOSTS.has(host) && segments.length === 2 && segments[0] === 'shorts') {
    id = segments[1];
  } else if (EMBED_HOSTS.has(host) && segments.length === 2 && segments[0] === 'embed') {
    id = segments[1];
  }
  return id !== undefined && VIDEO_ID_PATTERN.test(id) ? id : null;
}

/** True for the id the video player route accepts. */
export function isVideoId(value: unknown): value is string {
  return typeof value === 'string' && VIDEO_ID_PATTERN.test(value);
}

function serviceBase(baseUrl: string): string {
  const base = normalizeServiceBaseUrl(baseUrl);
  if (base === null) throw new TypeError('baseUrl must be an absolute http(s) URL without query or fragment');
  return base;
}

/** `{base_url}/exb/tool/video/<id>`. */
export function videoToolUrl(baseUrl: string, videoId: string): string {
  if (!isVideoId(videoId)) throw new RangeError('not a video id');
  return `${serviceBase(baseUrl)}${VIDEO_TOOL_PATH_PREFIX}${videoId}`;
}

/** A refusal of a launch address: the address rule's reason, said as the form names the field. */
function launchAddressRefusal(reason: PolicyMessageRef) {
  return policyMessage('tool.launchAddress', { reason: refOf(reason) });
}

/**
 * The canonical launch URL of a tool: a video link becomes the service's player route with the canonical id, the
 * player route itself stays as is (also on a plain-HTTP development base URL), anything else must be an exact HTTPS
 * URL the exam browser can match (at save time). Errors carry `INVALID_EXB_TOOL_POLICY`. Whether a launch URL at the
 * site root is acceptable depends on the tool's resource rules, so {@link normalizeExternalTool} decides that.
 */
export function normalizeToolUrl(url: unknown, baseUrl: string, path: PolicyPath = [], check: PolicyCheck = 'save'): PolicyResult<string> {
  const base = serviceBase(baseUrl);
  const videoId = parseVideoId(url);
  if (videoId !== null) return { ok: true, value: `${base}${VIDEO_TOOL_PATH_PREFIX}${videoId}` };
  if (typeof url === 'string') {
    const routePrefix = `${base}${VIDEO_TOOL_PATH_PREFIX}`;
    const trimmed = url.trim();
    if (trimmed.startsWith(routePrefix) && isVideoId(trimmed.slice(routePrefix.length))) {
      return { ok: true, value: trimmed };
    }
  }
  const exact = normalizeExactHttpsUrl(url);
  if (!exact.ok) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, launchAddressRefusal(exact), path);
  // A launch address at the site root is the tool's decision (`normalizeExternalTool`); every other mismatch is refused.
  const mismatch = check === 'save' ? exactRuleMismatch(exact.value) : null;
  if (mismatch !== null && mismatch !== 'whole-host') {
    return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, launchAddressRefusal(MISMATCH_MESSAGES[mismatch]), path);
  }
  return exact;
}
