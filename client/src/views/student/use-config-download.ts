import { useCallback, useEffect, useRef, useState } from 'react';
import { requestConfigGrant, type HandoffPurpose } from './api';

/** One assessment a download can be started for. */
export interface DownloadTarget {
  contentId: string;
  title: string;
  configGrantUrl: string;
}

export type DownloadState =
  | { phase: 'idle' }
  | { phase: 'requesting'; target: DownloadTarget }
  /** The handoff page is loading; it starts the exam browser. */
  | { phase: 'opening'; target: DownloadTarget }
  /**
   * The download waits until the student lets the tool sign the exam browser in to the LMS. `attempt` tells one refusal
   * from the next, so the step starts over when a retry is refused again.
   */
  | { phase: 'authorization-required'; target: DownloadTarget; authorizeUrl: string | undefined; attempt: number }
  | { phase: 'failed'; target: DownloadTarget; message: string };

/**
 * The download of a one-time configuration: a grant request, then this window goes to the handoff page, which hands
 * the `sebs://` launch URL to the operating system once. Grants are one-time and short-lived, so one is requested per
 * click and never kept; a second click while one is under way does nothing.
 */
export function useConfigDownload(actionToken: string | undefined, purpose: HandoffPurpose) {
  const [state, setState] = useState<DownloadState>({ phase: 'idle' });
  const busy = useRef(false);
  const attempts = useRef(0);

  // A page restored from the back-forward cache comes back as it was left, in "opening"; it must be usable again.
  useEffect(() => {
    const restored = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      busy.current = false;
      setState({ phase: 'idle' });
    };
    window.addEventListener('pageshow', restored);
    return () => window.removeEventListener('pageshow', restored);
  }, []);

  const download = useCallback(
    async (target: DownloadTarget) => {
      if (busy.current || actionToken === undefined) return;
      busy.current = true;
      setState({ phase: 'requesting', target });
      const outcome = await requestConfigGrant(target.configGrantUrl, actionToken, purpose);
      switch (outcome.kind) {
        case 'handoff':
          setState({ phase: 'opening', target });
          window.location.assign(outcome.handoffUrl);
          return;
        case 'authorization-required':
          attempts.current += 1;
          setState({ phase: 'authorization-required', target, authorizeUrl: outcome.authorizeUrl, attempt: attempts.current });
          break;
        case 'failed':
          setState({ phase: 'failed', target, message: outcome.message });
          break;
      }
      busy.current = false;
    },
    [actionToken, purpose],
  );

  return { state, download };
}

/** Whether `state` concerns the assessment with this content id. */
export function isFor(state: DownloadState, contentId: string): boolean {
  return state.phase !== 'idle' && state.target.contentId === contentId;
}
