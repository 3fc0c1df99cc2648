import { useCallback, useSyncExternalStore } from 'react';

/**
 * Which candidate lists of "Adopt with the original assessment's settings" are open, by assessment. Kept outside the
 * row that shows the list: a resized frame switches the quiz table between its wide and stacked layouts, which mounts
 * every row anew, and a list the user just opened must stay open through that. The page's lifetime is long enough;
 * nothing is stored.
 */
const open = new Set<string>();
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setOpen(key: string, value: boolean): void {
  if (open.has(key) === value) return;
  if (value) open.add(key);
  else open.delete(key);
  for (const listener of listeners) listener();
}

/** Whether the candidate list under `key` is open, and how to open or close it. */
export function usePickerOpen(key: string): [boolean, (value: boolean) => void] {
  const isOpen = useSyncExternalStore(subscribe, () => open.has(key));
  const set = useCallback((value: boolean) => setOpen(key, value), [key]);
  return [isOpen, set];
}
