import { Spinner, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { readServerError } from '../lib/trpc';
import { StatusAlert } from './StatusAlert';

/** What a query shows of itself: the fields of a TanStack Query result this needs. */
export interface QueryLike<T> {
  readonly isPending: boolean;
  readonly isError: boolean;
  readonly error: unknown;
  readonly data: T | undefined;
}

export interface QueryStateProps<T> {
  query: QueryLike<T>;
  /** The spinner's title while the first answer is awaited, already in the page's language. */
  loading: string;
  /** What went wrong, in words, when the query failed; `reason` is the service's (or the connection's) own. */
  failed: (reason: string, error: unknown) => ReactNode;
  /** `small`: a spinner in line, for a part of a page. */
  size?: 'small' | 'large';
  children: (data: T) => ReactNode;
}

/** A spinner until a query answers, the failure when it failed, else what `children` makes of its data. */
export function QueryState<T>({ query, loading, failed, size = 'large', children }: QueryStateProps<T>) {
  if (query.isPending) {
    return size === 'large' ? (
      <View as="div" textAlign="center" padding="large">
        <Spinner renderTitle={loading} size="small" />
      </View>
    ) : (
      <Spinner renderTitle={loading} size="x-small" />
    );
  }
  if (query.isError || query.data === undefined) return <StatusAlert>{failed(readServerError(query.error).message, query.error)}</StatusAlert>;
  return <>{children(query.data)}</>;
}

/** A bordered box with a list's empty state: what is missing and what to do. */
export function EmptyState({ children }: { children: ReactNode }) {
  return (
    <View as="div" padding="medium" borderWidth="small" borderRadius="medium" textAlign="center">
      {children}
    </View>
  );
}
