import { Button, Checkbox, Flex, Heading, Pill, ScreenReaderContent, SimpleSelect, Spinner, Text, View } from '@instructure/ui';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LMS_COURSE_SEARCH_MIN_LENGTH, normalizeAdminSearch } from '@exb/shared/admin-courses.js';
import { CursorPager, useCursorPages, usePagedFilter } from '../../components/CursorPager';
import { DataTable, type TableColumn } from '../../components/DataTable';
import { QueryState } from '../../components/QueryState';
import { SearchField, useDebouncedSearch } from '../../components/SearchField';
import { StatusAlert } from '../../components/StatusAlert';
import { useTRPC } from '../../lib/trpc';
import { ConnectResults, useConnectCourses } from './ConnectResults';
import type { CatalogCourse } from './model';
import { pagerLabels } from './pager';
import { PasteConnect } from './PasteConnect';

const ALL_TERMS = 'all';

/**
 * The LMS's live course list of the root account, to connect courses from: filter by term and search, select courses
 * across pages, or paste ids and addresses. Every connect answers per course.
 */
export function CatalogBrowser({ lmsOrigin }: { lmsOrigin: string | undefined }) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const terms = useQuery(trpc.admin.terms.list.queryOptions());
  const pages = useCursorPages();
  const search = useDebouncedSearch(normalizeAdminSearch, pages.reset);
  const [termId, setTermId] = usePagedFilter<string | null>(pages, null);
  const [includeUnpublished, setIncludeUnpublished] = usePagedFilter(pages, false);
  const [selected, setSelected] = useState<ReadonlyMap<string, string>>(new Map());
  // The names of the courses asked for, for the answers about courses that could not be connected.
  const [asked, setAsked] = useState<ReadonlyMap<string, string>>(new Map());
  const term = termId ?? terms.data?.operationalTerm?.id ?? ALL_TERMS;
  const searchTooShort = search.search !== '' && search.search.length < LMS_COURSE_SEARCH_MIN_LENGTH;

  const catalog = useQuery({
    ...trpc.admin.catalog.queryOptions({
      ...(searchTooShort || search.search === '' ? {} : { search: search.search }),
      ...(term !== ALL_TERMS ? { termId: term } : {}),
      ...(pages.cursor !== undefined ? { cursor: pages.cursor } : {}),
      includeUnpublished,
    }),
    enabled: !terms.isPending,
    placeholderData: keepPreviousData,
  });

  const refreshLists = () => void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
  const { connect, outcome, failure } = useConnectCourses((result) => {
    setSelected((current) => new Map([...current].filter(([id]) => !result.results.some((entry) => entry.courseId === id && entry.success))));
    refreshLists();
  });

  const toggle = (course: CatalogCourse, on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      if (on) next.set(course.id, course.name);
      else next.delete(course.id);
      return next;
    });

  return (
    <View as="div">
      <Heading level="h2" margin="0 0 small">
        {t('catalog.heading')}
      </Heading>
      <Flex gap="medium" wrap="wrap" alignItems="start" margin="0 0 small">
        <Flex.Item shouldGrow shouldShrink size="14rem">
          <SearchField
            search={search}
            label={t('catalog.search')}
            hint={searchTooShort ? t('catalog.searchTooShort', { count: LMS_COURSE_SEARCH_MIN_LENGTH }) : undefined}
          />
        </Flex.Item>
        <Flex.Item shouldShrink size="16rem">
          <SimpleSelect
            renderLabel={t('catalog.term')}
            value={term}
            onChange={(_event, { value }) => {
              if (typeof value === 'string') setTermId(value);
            }}
          >
            {[
              <SimpleSelect.Option id="catalog-term-all" key={ALL_TERMS} value={ALL_TERMS}>
                {t('catalog.allTerms')}
              </SimpleSelect.Option>,
              ...(terms.data?.terms ?? []).map((option) => (
                <SimpleSelect.Option id={`catalog-term-${option.id}`} key={option.id} value={option.id}>
                  {option.name}
                </SimpleSelect.Option>
              )),
            ]}
          </SimpleSelect>
        </Flex.Item>
      </Flex>
      <View as="div" margin="0 0 small">
        <Checkbox label={t('catalog.includeUnpublished')} checked={includeUnpublished} onChange={(event) => setIncludeUnpublished(event.target.checked)} />
      </View>
      <Flex gap="small" wrap="wrap" alignItems="center" justifyItems="space-between" margin="0 0 small">
        <Flex gap="small" alignItems="center">
          <Button
            color="primary"
            interaction={selected.size === 0 ? 'disabled' : 'enabled'}
            onClick={() => {
              if (connect.isPending) return;
              setAsked(selected);
              connect.mutate({ courseIds: [...selected.keys()] });
            }}
          >
            {connect.isPending ? t('connect.connecting') : selected.size === 0 ? t('catalog.selectToConnect') : t('catalog.connectSelected', { count: selected.size })}
          </Button>
          {connect.isPending && <Spinner renderTitle={t('catalog.connectingSelected')} size="x-small" />}
        </Flex>
        <CursorPager pages={pages} nextCursor={catalog.data?.nextCursor} labels={pagerLabels(t('catalog.pages'))} />
      </Flex>
      {catalog.data?.lmsIncludesDropped === true && (
        <StatusAlert variant="warning" margin="0 0 small">
          {t('catalog.includesDropped')}
        </StatusAlert>
      )}
      {failure !== null && <StatusAlert margin="small 0 0">{t('catalog.connectFailed', { reason: failure })}</StatusAlert>}
      {outcome !== null && <ConnectResults outcome={outcome} names={asked} />}
      <QueryState query={catalog} loading={t('catalog.reading')} failed={(reason) => t('catalog.readFailed', { reason })}>
        {(data) =>
          data.courses.length === 0 ? (
            <Text as="p">{t('catalog.noMatch')}</Text>
          ) : (
            <CatalogTable courses={data.courses} selected={selected} onToggle={toggle} busy={catalog.isFetching} />
          )
        }
      </QueryState>
      <View as="div" margin="large 0 0">
        <Heading level="h3" margin="0 0 x-small">
          {t('paste.heading')}
        </Heading>
        <PasteConnect lmsOrigin={lmsOrigin} onConnected={refreshLists} />
      </View>
    </View>
  );
}

interface CatalogTableProps {
  courses: readonly CatalogCourse[];
  selected: ReadonlyMap<string, string>;
  onToggle: (course: CatalogCourse, on: boolean) => void;
  busy: boolean;
}

function CatalogTable({ courses, selected, onToggle, busy }: CatalogTableProps) {
  const { t, i18n } = useTranslation('admin');
  const columns: TableColumn<CatalogCourse>[] = [
    {
      id: 'select',
      header: t('catalog.column.select'),
      headerHidden: true,
      render: (course) =>
        course.connected ? (
          <Pill color="success">{t('catalog.connected')}</Pill>
        ) : (
          <Checkbox
            label={<ScreenReaderContent>{t('select', { name: course.name })}</ScreenReaderContent>}
            checked={selected.has(course.id)}
            onChange={(event) => onToggle(course, event.target.checked)}
          />
        ),
    },
    {
      id: 'name',
      header: t('catalog.column.course'),
      rowHeader: true,
      render: (course) => (
        <>
          <Text weight="bold">{course.name}</Text>
          <Text as="div" size="small" color="secondary">
            {[
              course.courseCode || t('courseFallback', { id: course.id }),
              course.published ? null : t('catalog.unpublished'),
              course.concluded ? t('catalog.concluded') : null,
            ]
              .filter((part) => part !== null)
              .join(' · ')}
          </Text>
        </>
      ),
    },
    { id: 'term', header: t('catalog.column.term'), render: (course) => course.termName ?? '—' },
    {
      id: 'teachers',
      header: t('catalog.column.teachers'),
      render: (course) => (course.teachers && course.teachers.length > 0 ? new Intl.ListFormat(i18n.language, { type: 'unit' }).format(course.teachers) : '—'),
    },
    {
      id: 'students',
      header: t('catalog.column.students'),
      render: (course) => (course.totalStudents === null || course.totalStudents === undefined ? '—' : course.totalStudents.toLocaleString(i18n.language)),
    },
  ];
  return <DataTable caption={t('catalog.caption')} columns={columns} rows={courses} rowKey={(course) => course.id} updating={busy && t('catalog.reading')} />;
}
