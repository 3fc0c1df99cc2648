import { createContext, useContext } from 'react';

/**
 * Where an action in a board row says how it went. A re-admitted student leaves the stuck states, so under "Needs help"
 * their row would leave the table with the confirmation in it; the board shows the confirmation above the table
 * instead, and keeps the row listed until the filter changes.
 */
export interface BoardOutcomeSink {
  /**
   * An action on the student begins: their row stays listed from now on. The board is live, so the action's own
   * change can arrive before its answer, and a row that left the table then would take the open dialog with it.
   */
  keep(lmsUserId: string): void;
  report(lmsUserId: string, text: string): void;
}

export const BoardOutcomeContext = createContext<BoardOutcomeSink | null>(null);

/** The board's sink around a row's action; `null` for an action outside a board (the help field of the settings). */
export function useBoardOutcome(): BoardOutcomeSink | null {
  return useContext(BoardOutcomeContext);
}
