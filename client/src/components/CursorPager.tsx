import { Button, Flex, IconArrowOpenEndLine, IconArrowOpenStartLine, Text } from '@instructure/ui';
import { useCallback, useState } from 'react';

/**
 * The pages of a keyset-paged list visited so far: the cursors that led to them, so "previous" goes back the way it
 * came. `cursor` is the current page's (undefined on the first).
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  const previous = useCallback(() => setCursors((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)), []);
  const next = useCallback((cursor: string) => setCursors((stack) => [...stack, cursor]), []);
  /** Back to the first page (the filters changed). */
  const reset = useCallback(() => setCursors([undefined]), []);
  return { cursor: cursors[cursors.length - 1], page: cursors.length, hasPrevious: cursors.length > 1, previous, next, reset };
}

export type CursorPages = ReturnType<typeof useCursorPages>;

/** A filter of a paged list (a term, a checkbox): changing it goes back to the list's first page. */
export function usePagedFilter<T>(pages: CursorPages, initial: T): [T, (value: T) => void] {
  const [value, setValue] = useState(initial);
  const { reset } = pages;
  const change = useCallback(
    (next: T) => {
      setValue(next);
      reset();
    },
    [reset],
  );
  return [value, change];
}

/** What the pager says, already in the page's language. */
export interface PagerLabels {
  /** The navigation's name ("Course list pages"). */
  readonly navigation: string;
  readonly previous: string;
  readonly next: string;
  /** Where the list stands ("Page 2"); not shown without it. */
  readonly page?: (page: number) => string;
}

export interface CursorPagerProps {
  pages: CursorPages;
  /** The cursor of the page after the current one, if there is one. */
  nextCursor: string | null | undefined;
  labels: PagerLabels;
  justify?: 'start' | 'end';
  margin?: string;
}

/** Previous and next buttons of a keyset-paged list; nothing when the list has a single page. */
export function CursorPager({ pages, nextCursor, labels, justify = 'start', margin = '0' }: CursorPagerProps) {
  if (!pages.hasPrevious && (nextCursor === null || nextCursor === undefined)) return null;
  return (
    <Flex as="nav" aria-label={labels.navigation} gap="small" alignItems="center" justifyItems={justify} wrap="wrap" margin={margin}>
      <Button renderIcon={<IconArrowOpenStartLine />} interaction={pages.hasPrevious ? 'enabled' : 'disabled'} onClick={pages.previous}>
        {labels.previous}
      </Button>
      {labels.page !== undefined && <Text size="small">{labels.page(pages.page)}</Text>}
      <Button
        renderIcon={<IconArrowOpenEndLine />}
        interaction={typeof nextCursor === 'string' ? 'enabled' : 'disabled'}
        onClick={() => {
          if (typeof nextCursor === 'string') pages.next(nextCursor);
        }}
      >
        {labels.next}
      </Button>
    </Flex>
  );
}
