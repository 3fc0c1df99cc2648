/** When a course's setup may be called complete. */
import { policyMessage, type PolicyMessage } from './messages.js';

export interface SetupCompletion {
  /** The setup is to be saved as complete. */
  readonly setupCompleted: boolean;
  /**
   * The course will have an exit password after the save: its own (kept or newly entered) or the school's default.
   * Without one no assessment of the course can require the exam browser.
   */
  readonly exitPasswordAvailable: boolean;
}

/**
 * Why a course's setup cannot be marked complete, or `null`. Completing it hides the reminder that asks for an exit
 * password, and nothing can be required without one; so "complete" is refused while no exit password exists.
 */
export function setupCompletionProblem(input: SetupCompletion): PolicyMessage | null {
  if (!input.setupCompleted || input.exitPasswordAvailable) return null;
  return policyMessage('setup.exitPasswordFirst');
}

/** The English words of {@link setupCompletionProblem}. */
export function setupCompletionRefusal(input: SetupCompletion): string | null {
  return setupCompletionProblem(input)?.message ?? null;
}
