import { Flex, Link, Pill, SimpleSelect, Text, View } from '@instructure/ui';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { STUCK_STATES, STUDENT_STATES, type Board, type BoardStudent, type StudentState } from '@exb/shared/exam-day.js';
import { i18next } from '../../i18n/i18n';
import { withSessionToken } from '../../lib/session-token';
import { useAnnouncer } from '../Announcer';
import { DataTable, type TableColumn } from '../DataTable';
import { DefinitionList } from '../DefinitionList';
import { StatusAlert } from '../StatusAlert';
import { BoardOutcomeContext, type BoardOutcomeSink } from './board-outcome';

/** Which students the table shows: all, those who need help (the stuck states), or one state. */
export type BoardFilter = 'all' | 'stuck' | StudentState;
const FILTERS: readonly BoardFilter[] = ['all', 'stuck', ...STUDENT_STATES];

/** Counts are announced at most this often: a synchronized start must not flood a screen reader. */
const ANNOUNCE_PAUSE_MS = 5_000;

export interface ExamDayBoardProps {
  board: Board;
  /** Unique on the page: ids of the filter and the table derive from it. */
  idPrefix: string;
  /** The assessment's title, for the table's caption. */
  title: string;
  /** Where the board's CSV downloads from (without the session token, which is added here). */
  csvPath: string;
  /** The stream is open; otherwise the board is read on a timer. */
  live: boolean;
  /** An actions cell per student (re-admit, exempt); no column without it. */
  renderActions?: ((student: BoardStudent) => ReactNode) | undefined;
}

function shortTime(iso: string | null): string {
  if (iso === null) return '—';
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString(i18next.language, { timeStyle: 'medium' })
    : date.toLocaleString(i18next.language, { dateStyle: 'short', timeStyle: 'short' });
}

/** The time of the step that put the student where they are. */
function since(student: BoardStudent): string | null {
  switch (student.state) {
    case 'submitted':
      return student.attemptSubmittedAt;
    case 'exited':
      return student.exitedAt;
    case 'in-progress':
      return student.attemptStartedAt;
    case 'released-no-attempt':
      return student.releasedAt;
    case 'proven-not-released':
      return student.provenAt;
    case 'downloaded-not-proven':
      return student.lastDownloadAt;
    case 'not-started':
      return student.launchedAt ?? student.grantedAt;
  }
}

const isStuck = (state: StudentState) => STUCK_STATES.includes(state);

function matches(filter: BoardFilter, state: StudentState): boolean {
  return filter === 'all' || (filter === 'stuck' ? isStuck(state) : filter === state);
}

/**
 * One assessment's exam-day board: the counts per state, a filter, and every student with their state and the times of
 * their steps. Count changes are announced politely (never row by row), at most every few seconds. A row action's
 * confirmation is shown above the table, and its student stays listed until the filter changes.
 */
export function ExamDayBoard({ board, idPrefix, title, csvPath, live, renderActions }: ExamDayBoardProps) {
  const { t } = useTranslation('examDay');
  const [filter, setFilter] = useState<BoardFilter>('all');
  const counts = board.counts as Record<StudentState, number>;
  const stuck = STUCK_STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
  const number = (value: number) => new Intl.NumberFormat(i18next.language).format(value);
  const stateLabel = (state: StudentState) => t(`state.${state}`);
  // Without counts: a select keeps the text of its chosen option, so counts there would go stale; the list above has them.
  const filterLabel = (value: BoardFilter) => (value === 'all' ? t('filter.all') : value === 'stuck' ? t('filter.stuck') : stateLabel(value));
  const summary = t('announce', {
    stuck: number(stuck),
    counts: STUDENT_STATES.filter((state) => (counts[state] ?? 0) > 0).map((state) => `${stateLabel(state)}: ${number(counts[state])}`).join(', ') || t('empty'),
  });
  const [announcement, announce] = useAnnouncer();
  const announced = useRef<{ text: string; at: number } | null>(null);
  useEffect(() => {
    // The first reading is on screen already; later changes are announced, the last of a burst after a pause.
    if (announced.current === null) {
      announced.current = { text: summary, at: 0 };
      return;
    }
    if (announced.current.text === summary) return;
    const wait = Math.max(0, announced.current.at + ANNOUNCE_PAUSE_MS - Date.now());
    const timer = setTimeout(() => {
      announced.current = { text: summary, at: Date.now() };
      announce(summary);
    }, wait);
    return () => clearTimeout(timer);
  }, [summary, announce]);

  // The last action's confirmation, and the students acted on since the filter was chosen: they stay listed, so the
  // teacher sees where the action left them and the focus stays on the row's button.
  const [outcome, setOutcome] = useState<{ id: number; text: string } | null>(null);
  const [kept, setKept] = useState<ReadonlySet<string>>(new Set());
  const sink = useMemo<BoardOutcomeSink>(
    () => ({
      keep: (lmsUserId) => setKept((previous) => (previous.has(lmsUserId) ? previous : new Set(previous).add(lmsUserId))),
      report: (lmsUserId, text) => {
        setKept((previous) => new Set(previous).add(lmsUserId));
        setOutcome((previous) => ({ id: (previous?.id ?? 0) + 1, text }));
      },
    }),
    [],
  );
  const chooseFilter = (value: BoardFilter) => {
    setFilter(value);
    setKept(new Set());
  };

  const rows = board.students.filter((student) => matches(filter, student.state) || kept.has(student.lmsUserId));
  const columns: TableColumn<BoardStudent>[] = [
    { id: `${idPrefix}-student`, header: t('column.student'), rowHeader: true, render: (s) => s.name ?? t('unnamed', { id: s.lmsUserId }) },
    {
      id: `${idPrefix}-state`,
      header: t('column.state'),
      render: (s) => (
        <>
          <Text weight={isStuck(s.state) ? 'bold' : 'normal'} color={isStuck(s.state) ? 'danger' : 'primary'}>
            {stateLabel(s.state)}
          </Text>
          {!matches(filter, s.state) && (
            <Text as="div" size="small" color="secondary">
              {t('keptUntilFilterChanges')}
            </Text>
          )}
        </>
      ),
    },
    { id: `${idPrefix}-since`, header: t('column.since'), render: (s) => shortTime(since(s)) },
    { id: `${idPrefix}-downloads`, header: t('column.downloads'), textAlign: 'end', render: (s) => number(s.downloads) },
    { id: `${idPrefix}-download`, header: t('column.lastDownload'), render: (s) => shortTime(s.lastDownloadAt) },
    { id: `${idPrefix}-proven`, header: t('column.proven'), render: (s) => shortTime(s.provenAt) },
    { id: `${idPrefix}-released`, header: t('column.released'), render: (s) => shortTime(s.releasedAt) },
    ...(renderActions === undefined ? [] : [{ id: `${idPrefix}-actions`, header: t('column.actions'), render: renderActions }]),
  ];

  return (
    <View as="div" data-testid="exam-day-board">
      {announcement}
      <Flex wrap="wrap" gap="small" alignItems="center" margin="0 0 small">
        <Flex.Item>
          {live ? (
            <Pill color="success" data-testid="board-live">
              {t('live.on')}
            </Pill>
          ) : (
            <Pill color="warning" data-testid="board-polling">
              {t('live.off')}
            </Pill>
          )}
        </Flex.Item>
        <Flex.Item>
          <Text size="small" color="secondary">
            {t('updatedAt', { time: shortTime(board.generatedAt) })}
          </Text>
        </Flex.Item>
        <Flex.Item margin="0 0 0 auto">
          <Link href={withSessionToken(csvPath)} download data-testid="board-csv">
            {t('csv')}
          </Link>
        </Flex.Item>
      </Flex>
      <DefinitionList
        label={t('countsLabel')}
        items={[
          { key: 'stuck', term: t('needsHelp'), description: number(stuck) },
          ...STUDENT_STATES.map((state) => ({ key: state, term: stateLabel(state), description: number(counts[state] ?? 0) })),
        ]}
      />
      <View as="div" margin="small 0" maxWidth="24rem">
        <SimpleSelect
          renderLabel={t('filter.label')}
          value={filter}
          onChange={(_event, { value }) => chooseFilter((FILTERS.includes(value as BoardFilter) ? value : 'all') as BoardFilter)}
          data-testid="board-filter"
        >
          {FILTERS.map((value) => (
            <SimpleSelect.Option key={value} id={`${idPrefix}-filter-${value}`} value={value}>
              {filterLabel(value)}
            </SimpleSelect.Option>
          ))}
        </SimpleSelect>
      </View>
      {outcome !== null && (
        <View as="div" margin="0 0 small" data-testid="board-outcome">
          <StatusAlert key={outcome.id} variant="success" live="polite" dismissLabel={t('outcomeDismiss')} onDismiss={() => setOutcome(null)}>
            {outcome.text}
          </StatusAlert>
        </View>
      )}
      {rows.length === 0 ? (
        <Text as="p" color="secondary">
          {board.students.length === 0 ? t('empty') : t('noneInFilter')}
        </Text>
      ) : (
        <BoardOutcomeContext.Provider value={sink}>
          <DataTable caption={t('caption', { title, filter: filterLabel(filter) })} columns={columns} rows={rows} rowKey={(s) => s.lmsUserId} />
        </BoardOutcomeContext.Provider>
      )}
    </View>
  );
}
