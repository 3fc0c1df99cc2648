import type { DriftAlert } from './sweep-records.js';

/** A drift alert as the views receive it: times as ISO strings, never a code. */
export function alertView(alert: DriftAlert) {
  return {
    courseId: alert.courseId,
    contentId: alert.contentId,
    title: alert.title,
    startsAt: alert.startsAt.toISOString(),
    sweptAt: alert.sweptAt.toISOString(),
    stage: alert.stage,
    found: alert.found,
    repaired: alert.repaired,
    outcome: alert.outcome,
  };
}
export type DriftAlertView = ReturnType<typeof alertView>;
