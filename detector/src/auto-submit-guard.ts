/**
 * The LMS answers a wrong access code by rendering the same prompt again. If the code the service released is out of
 * step with the LMS, filling and submitting on every load would loop, so a submission is remembered for this tab and
 * the prompt is not submitted again within the window.
 */
import type { AssessmentTarget } from './service-urls.js';

export const AUTO_SUBMIT_WINDOW_MS = 30_000;
const KEY_PREFIX = 'exb-code-submitted:';

function key(target: AssessmentTarget): string {
  return `${KEY_PREFIX}${target.courseId}:${target.contentId}`;
}

/** False when this tab submitted the prompt for the assessment less than the window ago. */
export function mayAutoSubmit(storage: Storage | null, target: AssessmentTarget, now: number): boolean {
  if (storage === null) return true;
  try {
    const last = Number(storage.getItem(key(target)));
    return !(Number.isFinite(last) && last > 0 && now - last >= 0 && now - last < AUTO_SUBMIT_WINDOW_MS);
  } catch {
    return true;
  }
}

export function recordAutoSubmit(storage: Storage | null, target: AssessmentTarget, now: number): void {
  if (storage === null) return;
  try {
    storage.setItem(key(target), String(now));
  } catch {
    // Without storage the guard is off; the service's proof budget still bounds a loop.
  }
}
