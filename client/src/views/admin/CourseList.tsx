import { Checkbox, Flex, Heading, Link, Pill, ScreenReaderContent, Text, View } from '@instructure/ui';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { normalizeAdminSearch } from '@exb/shared/admin-courses.js';
import { CursorPager, useCursorPages, usePagedFilter } from '../../components/CursorPager';
import { DataTable, type TableColumn } from '../../components/DataTable';
import { EmptyState, QueryState } from '../../components/QueryState';
import { SearchField, useDebouncedSearch } from '../../components/SearchField';
import { useTRPC } from '../../lib/trpc';
import { relativeTime, type CourseRow } from './model';
import { pagerLabels } from './pager';
import { TermSelector } from './TermSelector';

interface CourseListProps {
  onOpen: (course: CourseRow) => void;
  registerOpener: (id: string, element: HTMLElement | null) => void;
}

/** The account's connected courses: search, past courses on request, the operational term, and keyset paging. */
export function CourseList({ onOpen, registerOpener }: CourseListProps) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const pages = useCursorPages();
  const search = useDebouncedSearch(normalizeAdminSearch, pages.reset);
  const [includePast, setIncludePast] = usePagedFilter(pages, false);
  const courses = useQuery({
    ...trpc.admin.courses.list.queryOptions({ search: search.search, includePast, ...(pages.cursor !== undefined ? { cursor: pages.cursor } : {}) }),
    placeholderData: keepPreviousData,
  });

  return (
    <View as="section" display="block" aria-labelledby="courses-heading">
      <Flex gap="medium" wrap="wrap" alignItems="start" margin="0 0 small">
        <Flex.Item shouldGrow shouldShrink size="14rem">
          <SearchField search={search} label={t('courses.search')} placeholder={t('courses.searchPlaceholder')} />
        </Flex.Item>
        <Flex.Item shouldShrink size="16rem">
          <TermSelector />
        </Flex.Item>
      </Flex>
      <View as="div" margin="0 0 small">
        <Checkbox label={t('courses.includePast')} checked={includePast} onChange={(event) => setIncludePast(event.target.checked)} />
      </View>
      <ScreenReaderContent>
        <Heading level="h2" id="courses-heading">
          {t('courses.heading')}
        </Heading>
      </ScreenReaderContent>
      <QueryState query={courses} loading={t('courses.loading')} failed={(reason) => t('courses.loadFailed', { reason })}>
        {(data) =>
          data.courses.length === 0 ? (
            <EmptyState>
              <Text as="p">{search.search !== '' ? t('courses.noMatch', { search: search.search }) : t('courses.none')}</Text>
              <Text as="p" color="secondary">
                {search.search !== '' || includePast ? t('courses.noMatchHint') : t('courses.noneHint')}
              </Text>
            </EmptyState>
          ) : (
            <CourseTable rows={data.courses} onOpen={onOpen} registerOpener={registerOpener} busy={courses.isFetching} />
          )
        }
      </QueryState>
      <CursorPager pages={pages} nextCursor={courses.data?.nextCursor} labels={pagerLabels(t('courses.pages'))} justify="end" margin="small 0 0" />
    </View>
  );
}

function CourseTable({ rows, onOpen, registerOpener, busy }: CourseListProps & { rows: readonly CourseRow[]; busy: boolean }) {
  const { t } = useTranslation('admin');
  const columns: TableColumn<CourseRow>[] = [
    { id: 'course', header: t('courses.column.course'), rowHeader: true, render: (row) => <CourseLink row={row} onOpen={onOpen} registerOpener={registerOpener} /> },
    { id: 'code', header: t('courses.column.code'), render: (row) => row.courseCode || '—' },
    {
      id: 'quizzes',
      header: t('courses.column.enforced'),
      // Before the first read the counts are of nothing: say so instead of "0 of 0".
      render: (row) =>
        row.readFromLms ? (
          t('courses.enforcedCount', { count: row.assessmentCount, enabled: row.enabledAssessmentCount })
        ) : (
          <Text color="secondary">{t('courses.notRead')}</Text>
        ),
    },
    {
      id: 'issues',
      header: t('courses.column.issues'),
      render: (row) =>
        row.issueCount > 0 ? <Pill color="danger">{t('courses.issues', { count: row.issueCount })}</Pill> : <Text color="secondary">{t('courses.noIssues')}</Text>,
    },
    { id: 'refreshed', header: t('courses.column.refreshed'), render: (row) => (row.readFromLms ? relativeTime(row.lastRefreshedAt) : t('courses.neverRefreshed')) },
  ];
  return <DataTable caption={t('courses.caption')} columns={columns} rows={rows} rowKey={(row) => row.id} hover updating={busy && t('courses.updating')} />;
}

/** A course's name, which opens it, with a mark when the course is past. */
function CourseLink({ row, onOpen, registerOpener }: CourseListProps & { row: CourseRow }) {
  const { t } = useTranslation('admin');
  return (
    <>
      <Link
        as="button"
        isWithinText={false}
        onClick={() => onOpen(row)}
        elementRef={(element) => registerOpener(row.id, element instanceof HTMLElement ? element : null)}
      >
        {row.name}
      </Link>
      {row.concluded && (
        <View as="span" margin="0 0 0 x-small">
          <Pill>{t('courses.past')}</Pill>
        </View>
      )}
    </>
  );
}
