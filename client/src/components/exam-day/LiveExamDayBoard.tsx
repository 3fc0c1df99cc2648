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
  /** Opens the board's live signal with the same input. */
  subscribe: Subscribe;
  idPrefix: string;
  title: string;
  csvPath: string;
  renderActions?: ((student: BoardStudent) => ReactNode) | undefined;
}

/** A board read through its query and kept current by its live signal, or by polling while the signal is down. */
export function LiveExamDayBoard({ queryOptions, subscribe, idPrefix, title, csvPath, renderActions }: LiveExamDayBoardProps) {
  const { t } = useTranslation('examDay');
  const key = JSON.stringify(queryOptions.queryKey);
  // The stream and the query share the refetch; the stream's state decides whether the query polls.
  const live = useLiveBoard(subscribe, () => void board.refetch(), key);
  const board = useQuery({ ...queryOptions, refetchInterval: live.refetchInterval, refetchIntervalInBackground: false, staleTime: 0 });
  return (
    <QueryState query={board} loading={t('loading')} failed={(reason) => t('loadFailed', { reason })}>
      {(data) => <ExamDayBoard board={data} idPrefix={idPrefix} title={title} csvPath={csvPath} live={live.live} renderActions={renderActions} />}
    </QueryState>
  );
}
