import {
  Alert,
  Button,
  Checkbox,
  Flex,
  Heading,
  IconArrowOpenEndLine,
  IconArrowOpenStartLine,
  Pill,
  ScreenReaderContent,
  SimpleSelect,
  Spinner,
  Table,
  Text,
  TextInput,
  View,
} from '@instructure/ui';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { LMS_COURSE_SEARCH_MIN_LENGTH, normalizeAdminSearch } from '@exb/shared/admin-courses.js';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useMediaQuery } from '../../lib/use-media-query';
import { ConnectResults } from './ConnectResults';
import type { CatalogCourse, ConnectOutcome } from './model';
import { PasteConnect } from './PasteConnect';

const ALL_TERMS = 'all';

/**
 * The LMS's live course list of the root account, to connect courses from: filter by term and search, select courses
 * across pages, or paste ids and addresses. Every connect answers per course.
 */
export function CatalogBrowser({ lmsOrigin }: { lmsOrigin: string | undefined }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const terms = useQuery(trpc.admin.terms.list.queryOptions());
  const [termId, setTermId] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  const [includeUnpublished, setIncludeUnpublished] = useState(false);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [selected, setSelected] = useState<ReadonlyMap<string, string>>(new Map());
  const [outcome, setOutcome] = useState<{ result: ConnectOutcome; names: ReadonlyMap<string, string> } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1];
  const term = termId ?? terms.data?.operationalTerm?.id ?? ALL_TERMS;
  const searchTooShort = search !== '' && search.length < LMS_COURSE_SEARCH_MIN_LENGTH;

  useEffect(() => {
    const timer = window.setTimeout(() => {
      const next = normalizeAdminSearch(text);
      if (next !== search) {
        setSearch(next);
        setCursors([undefined]);
      }
    }, 300);
    return () => window.clearTimeout(timer);
  }, [text, search]);

  const catalog = useQuery({
    ...trpc.admin.catalog.queryOptions({
      ...(searchTooShort || search === '' ? {} : { search }),
      ...(term !== ALL_TERMS ? { termId: term } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
      includeUnpublished,
    }),
    enabled: !terms.isPending,
    placeholderData: keepPreviousData,
  });

  const refreshLists = () => void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
  const connect = useMutation(
    trpc.admin.courses.connect.mutationOptions({
      onMutate: () => {
        setError(null);
        setOutcome(null);
      },
      onSuccess: (result, _input) => {
        setOutcome({ result, names: selected });
        setSelected((current) => new Map([...current].filter(([id]) => !result.results.some((entry) => entry.courseId === id && entry.success))));
        refreshLists();
      },
      onError: (failure) => setError(`${readServerError(failure).message} Nothing was connected; try again.`),
    }),
  );

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
        Connect courses from the LMS
      </Heading>
      <Flex gap="medium" wrap="wrap" alignItems="start" margin="0 0 small">
        <Flex.Item shouldGrow shouldShrink size="14rem">
          <TextInput
            renderLabel="Search the LMS courses"
            type="search"
            value={text}
            onChange={(_event, value) => setText(value)}
            messages={searchTooShort ? [{ type: 'hint', text: `Type at least ${LMS_COURSE_SEARCH_MIN_LENGTH} characters to search.` }] : undefined}
          />
        </Flex.Item>
        <Flex.Item shouldShrink size="16rem">
          <SimpleSelect
            renderLabel="Term"
            value={term}
            onChange={(_event, { value }) => {
              if (typeof value === 'string') {
                setTermId(value);
                setCursors([undefined]);
              }
            }}
          >
            {[
              <SimpleSelect.Option id="catalog-term-all" key={ALL_TERMS} value={ALL_TERMS}>
                All terms
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
        <Checkbox
          label="Include unpublished courses"
          checked={includeUnpublished}
          onChange={(event) => {
            setIncludeUnpublished(event.target.checked);
            setCursors([undefined]);
          }}
        />
      </View>
      <Flex gap="small" wrap="wrap" alignItems="center" justifyItems="space-between" margin="0 0 small">
        <Flex gap="small" alignItems="center">
          <Button
            color="primary"
            interaction={selected.size === 0 ? 'disabled' : 'enabled'}
            onClick={() => {
              if (!connect.isPending) connect.mutate({ courseIds: [...selected.keys()] });
            }}
          >
            {connect.isPending
              ? 'Connecting…'
              : selected.size === 0
                ? 'Select courses to connect'
                : `Connect ${selected.size} selected course${selected.size === 1 ? '' : 's'}`}
          </Button>
          {connect.isPending && <Spinner renderTitle="Connecting the selected courses" size="x-small" />}
        </Flex>
        {catalog.data !== undefined && (cursors.length > 1 || catalog.data.nextCursor !== null) && (
          <Flex gap="small" as="nav" aria-label="Catalog pages">
            <Button renderIcon={<IconArrowOpenStartLine />} interaction={cursors.length > 1 ? 'enabled' : 'disabled'} onClick={() => setCursors((stack) => stack.slice(0, -1))}>
              Previous
            </Button>
            <Button
              renderIcon={<IconArrowOpenEndLine />}
              interaction={catalog.data.nextCursor !== null ? 'enabled' : 'disabled'}
              onClick={() => {
                const next = catalog.data.nextCursor;
                if (next !== null) setCursors((stack) => [...stack, next]);
              }}
            >
              Next
            </Button>
          </Flex>
        )}
      </Flex>
      {error !== null && (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false} margin="small 0 0">
          {error}
        </Alert>
      )}
      {outcome !== null && <ConnectResults outcome={outcome.result} names={outcome.names} />}
      {catalog.isPending ? (
        <View as="div" textAlign="center" padding="large">
          <Spinner renderTitle="Reading the courses from the LMS" size="small" />
        </View>
      ) : catalog.isError ? (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
          The LMS course list could not be read: {readServerError(catalog.error).message} Try again in a moment.
        </Alert>
      ) : catalog.data.courses.length === 0 ? (
        <Text as="p">No LMS course matches these filters. Choose another term or change the search.</Text>
      ) : (
        <CatalogTable courses={catalog.data.courses} selected={selected} onToggle={toggle} busy={catalog.isFetching} />
      )}
      <View as="div" margin="large 0 0">
        <Heading level="h3" margin="0 0 x-small">
          Paste course ids or addresses
        </Heading>
        <PasteConnect lmsOrigin={lmsOrigin} onConnected={refreshLists} />
      </View>
    </View>
  );
}

function CatalogTable({
  courses,
  selected,
  onToggle,
  busy,
}: {
  courses: readonly CatalogCourse[];
  selected: ReadonlyMap<string, string>;
  onToggle: (course: CatalogCourse, on: boolean) => void;
  busy: boolean;
}) {
  const narrow = useMediaQuery('(max-width: 44rem)');
  return (
    <View as="div" position="relative">
      {busy && (
        <View as="div" position="absolute" insetInlineEnd="0" insetBlockStart="-2rem">
          <Spinner renderTitle="Reading the courses from the LMS" size="x-small" />
        </View>
      )}
      <Table caption="LMS courses of the account" layout={narrow ? 'stacked' : 'auto'}>
        <Table.Head>
          <Table.Row>
            <Table.ColHeader id="select">
              <ScreenReaderContent>Select</ScreenReaderContent>
            </Table.ColHeader>
            <Table.ColHeader id="name">Course</Table.ColHeader>
            <Table.ColHeader id="term">Term</Table.ColHeader>
            <Table.ColHeader id="teachers">Teachers</Table.ColHeader>
            <Table.ColHeader id="students">Students</Table.ColHeader>
          </Table.Row>
        </Table.Head>
        <Table.Body>
          {courses.map((course) => (
            <Table.Row key={course.id}>
              <Table.Cell>
                {course.connected ? (
                  <Pill color="success">Connected</Pill>
                ) : (
                  <Checkbox
                    label={<ScreenReaderContent>Select {course.name}</ScreenReaderContent>}
                    checked={selected.has(course.id)}
                    onChange={(event) => onToggle(course, event.target.checked)}
                  />
                )}
              </Table.Cell>
              <Table.RowHeader>
                <Text weight="bold">{course.name}</Text>
                <Text as="div" size="small" color="secondary">
                  {course.courseCode || `Course ${course.id}`}
                  {course.published ? '' : ' · unpublished'}
                  {course.concluded ? ' · concluded' : ''}
                </Text>
              </Table.RowHeader>
              <Table.Cell>{course.termName ?? '—'}</Table.Cell>
              <Table.Cell>{course.teachers && course.teachers.length > 0 ? course.teachers.join(', ') : '—'}</Table.Cell>
              <Table.Cell>{course.totalStudents ?? '—'}</Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </View>
  );
}
