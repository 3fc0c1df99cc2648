import { useQuery, type UseQueryOptions } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Board, BoardStudent } from '@exb/shared/exam-day.js';
import { QueryState } from '../QueryState';
import { ExamDayBoard } from './ExamDayBoard';
import { useLiveBoard, type Subscribe } from './live-board';

export interface LiveExamDayBoardProps {
  /** The board's query (the teacher's or the administrator's procedure); its error and key types are the client's. */
  queryOptions: UseQueryOptions<Board, any, Board, any>;
  /** Opens the board's stream with the same input. */
  subscribe: Subscribe;
  idPrefix: string;
  title: string;
  csvPath: string;
  renderActions?: ((student: BoardStudent) => ReactNode) | undefined;
}

/** Of two answers, the one generated last. */
function newer(a: Board | null | undefined, b: Board | undefined): Board | undefined {
  if (a == null) return b;
  if (b === undefined) return a;
  return b.generatedAt > a.generatedAt ? b : a;
}

/**
 * A board kept current by its stream (the whole board, then what changed), or read through its query, polling, while
 * the stream is down; the query is asked nothing while the stream is live.
 */
export function LiveExamDayBoard({ queryOptions, subscribe, idPrefix, title, csvPath, renderActions }: LiveExamDayBoardProps) {
  const { t } = useTranslation('examDay');
  const live = useLiveBoard(subscribe, JSON.stringify(queryOptions.queryKey));
  const query = useQuery({
    ...queryOptions,
    enabled: !live.live,
    refetchInterval: live.refetchInterval,
    refetchIntervalInBackground: false,
    staleTime: 0,
  });
  const shown = live.live ? (live.board ?? undefined) : newer(live.board, query.data);
  return (
    <QueryState
      query={shown === undefined ? query : { isPending: false, isError: false, error: null, data: shown }}
      loading={t('loading')}
      failed={(reason) => t('loadFailed', { reason })}
    >
      {(data) => <ExamDayBoard board={data} idPrefix={idPrefix} title={title} csvPath={csvPath} live={live.live} renderActions={renderActions} />}
    </QueryState>
  );
}
