import type { SqlOnClient } from '../../db/pg-transaction.js';

/**
 * The reset's step that deletes the course's tool preset assignments, run inside the reset's transaction so they go
 * together with everything else the reset deletes (Document 2: "per-course preset assignments").
 *
 * `tx` runs SQL with `?` placeholders in the reset's transaction (`tx.execute(sql, params, 'run')`).
 *
 * Preset assignments belong to the tool presets feature, which keeps them in its own table. The reset takes that
 * feature's deletion as a dependency instead of naming its table: where the feature is present, `adminServices` passes
 * its implementation; without it there are no assignments to delete.
 */
export interface PresetAssignmentCleanup {
  /** Deletes the course's preset assignments in the caller's transaction; returns how many were deleted. */
  deleteForCourse(tx: SqlOnClient, courseId: string): Promise<number>;
}

export const NO_PRESET_ASSIGNMENTS: PresetAssignmentCleanup = {
  deleteForCourse: () => Promise.resolve(0),
};
