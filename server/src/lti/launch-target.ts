import { parseContentId } from '@exb/shared/content-id.js';
import { EXB_LAUNCH_ROUTE, LTI_LAUNCH_ROUTE, servicePath } from '@exb/shared/service-paths.js';

export const LTI_LAUNCH_PATH = LTI_LAUNCH_ROUTE.path;
const EXB_LAUNCH_PREFIX = EXB_LAUNCH_ROUTE.path.slice(0, EXB_LAUNCH_ROUTE.path.indexOf(':'));

/** The contract's limit on `target_link_uri`. */
export const MAX_TARGET_LINK_URI_LENGTH = 2048;

/** Where a launch lands: the role-routed tool or the exam-browser launch of one assessment. */
export type LaunchTarget = { kind: 'lti'; path: typeof LTI_LAUNCH_PATH } | { kind: 'exb'; path: string; contentId: string };

export function exbLaunchPath(contentId: string): string {
  return servicePath(EXB_LAUNCH_ROUTE, [contentId]);
}

/** The target of a path the service serves (`/lti/launch` or `/exb/launch/:contentId`), or `null`. */
export function launchTargetFromPath(path: string): LaunchTarget | null {
  if (path === LTI_LAUNCH_PATH) return { kind: 'lti', path: LTI_LAUNCH_PATH };
  if (!path.startsWith(EXB_LAUNCH_PREFIX)) return null;
  let contentId: string;
  try {
    contentId = decodeURIComponent(path.slice(EXB_LAUNCH_PREFIX.length));
  } catch {
    return null;
  }
  // Only canonical content ids: one spelling per assessment, so targets compare as strings.
  return parseContentId(contentId) ? { kind: 'exb', path: exbLaunchPath(contentId), contentId } : null;
}

/**
 * Parses a `target_link_uri`: at most 2048 characters, on the tool's own origin, without credentials, query or
 * fragment, and naming one of the launch paths. Anything else is not a place a launch may land.
 */
export function parseTargetLinkUri(value: unknown, baseUrl: string): LaunchTarget | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TARGET_LINK_URI_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.origin !== new URL(baseUrl).origin || url.username || url.password || url.search || url.hash) return null;
  // `new URL` drops an empty `?` or `#`; the raw string must not carry them either.
  if (value.includes('?') || value.includes('#')) return null;
  return launchTargetFromPath(url.pathname);
}

export function sameTarget(a: LaunchTarget, b: LaunchTarget): boolean {
  return a.path === b.path;
}
