/**
 * A process-wide count of settings writes. Every statement that writes `assessment_setting` or `course_defaults`
 * advances it once it has run, so an in-process cache of answers derived from settings (the requirement check) drops
 * what it computed before: a change made through this process is seen by its next request. Other instances' writes are
 * seen when the cache's short lifetime ends.
 */
let generation = 0;

export function settingsWritten(): void {
  generation += 1;
}

export function settingsGeneration(): number {
  return generation;
}
