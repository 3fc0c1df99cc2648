import { useEffect } from 'react';
import { z } from './zod';

/** A path on this service (`/lti/launch`, `/api/...`): never another origin, never a scheme. */
export const localPath = z
  .string()
  .regex(/^\/(?![/\\])[^\s]*$/, 'Expected a path on this service');

/**
 * A launch arrives as a form post from the LMS. Replacing the history entry with the page's GET address makes a reload
 * load the session's page again instead of re-posting a launch that can only be used once.
 */
export function useReloadUrl(reloadUrl: string | undefined): void {
  useEffect(() => {
    if (reloadUrl === undefined) return;
    const target = new URL(reloadUrl, window.location.href);
    if (target.origin !== window.location.origin) return;
    window.history.replaceState(window.history.state, '', target.pathname + target.search);
  }, [reloadUrl]);
}
