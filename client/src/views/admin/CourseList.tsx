import {
  Alert,
  Button,
  Checkbox,
  Flex,
  Heading,
  IconArrowOpenEndLine,
  IconArrowOpenStartLine,
  IconSearchLine,
  Link,
  Pill,
  ScreenReaderContent,
  Spinner,
  Table,
  Text,
  TextInput,
  View,
} from '@instructure/ui';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { normalizeAdminSearch } from '@exb/shared/admin-courses.js';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useMediaQuery } from '../../lib/use-media-query';
import { relativeTime, type CourseRow } from './model';
import { TermSelector } from './TermSelector';

const SEARCH_DELAY_MS = 300;

/** The account's connected courses: search, past courses on request, the operational term, and keyset paging. */
export function CourseList({ onOpen, registerOpener }: { onOpen: (course: CourseRow) => void; registerOpener: (id: string, element: HTMLElement | null) => void }) {
  const trpc = useTRPC();
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  const [includePast, setIncludePast] = useState(false);
  // Cursors of the pages visited, so "Previous" goes back the way it came.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    const timer = window.setTimeout(() => {
      const next = normalizeAdminSearch(text);
      if (next !== search) {
        setSearch(next);
        setCursors([undefined]);
      }
    }, SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [text, search]);

  const courses = useQuery({
    ...trpc.admin.courses.list.queryOptions({ search, includePast, ...(cursor !== undefined ? { cursor } : {}) }),
    placeholderData: keepPreviousData,
  });

  return (
    <View as="section" display="block" aria-labelledby="courses-heading">
      <Flex gap="medium" wrap="wrap" alignItems="start" margin="0 0 small">
        <Flex.Item shouldGrow shouldShrink size="14rem">
          <TextInput
            renderLabel="Search connected courses"
            placeholder="Name, course code or id"
            value={text}
            onChange={(_event, value) => setText(value)}
            renderBeforeInput={<IconSearchLine inline={false} />}
            type="search"
          />
        </Flex.Item>
        <Flex.Item shouldShrink size="16rem">
          <TermSelector />
        </Flex.Item>
      </Flex>
      <View as="div" margin="0 0 small">
        <Checkbox
          label="Include past courses"
          checked={includePast}
          onChange={(event) => {
            setIncludePast(event.target.checked);
            setCursors([undefined]);
          }}
        />
      </View>
      <ScreenReaderContent>
        <Heading level="h2" id="courses-heading">
          Connected courses
        </Heading>
      </ScreenReaderContent>
      {courses.isPending ? (
        <View as="div" textAlign="center" padding="large">
          <Spinner renderTitle="Loading the connected courses" size="small" />
        </View>
      ) : courses.isError ? (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
          The courses could not be loaded: {readServerError(courses.error).message} Try again in a moment.
        </Alert>
      ) : courses.data.courses.length === 0 ? (
        <View as="div" padding="medium" borderWidth="small" borderRadius="medium" textAlign="center">
          <Text as="p">{search !== '' ? `No connected course matches “${search}”.` : 'No courses are connected yet.'}</Text>
          <Text as="p" color="secondary">
            {search !== '' || includePast ? 'Change the search or include past courses.' : 'Connect courses from the course catalog.'}
          </Text>
        </View>
      ) : (
        <CourseTable rows={courses.data.courses} onOpen={onOpen} registerOpener={registerOpener} busy={courses.isFetching} />
      )}
      {courses.data !== undefined && (cursors.length > 1 || courses.data.nextCursor !== null) && (
        <Flex gap="small" margin="small 0 0" justifyItems="end" as="nav" aria-label="Course list pages">
          <Button
            renderIcon={<IconArrowOpenStartLine />}
            interaction={cursors.length > 1 ? 'enabled' : 'disabled'}
            onClick={() => setCursors((stack) => stack.slice(0, -1))}
          >
            Previous page
          </Button>
          <Text size="small">Page {cursors.length}</Text>
          <Button
            renderIcon={<IconArrowOpenEndLine />}
            interaction={courses.data.nextCursor !== null ? 'enabled' : 'disabled'}
            onClick={() => {
              const next = courses.data.nextCursor;
              if (next !== null) setCursors((stack) => [...stack, next]);
            }}
          >
            Next page
          </Button>
        </Flex>
      )}
    </View>
  );
}

function CourseTable({
  rows,
  onOpen,
  registerOpener,
  busy,
}: {
  rows: readonly CourseRow[];
  onOpen: (course: CourseRow) => void;
  registerOpener: (id: string, element: HTMLElement | null) => void;
  busy: boolean;
}) {
  const narrow = useMediaQuery('(max-width: 44rem)');
  return (
    <View as="div" position="relative">
      {busy && (
        <View as="div" position="absolute" insetInlineEnd="0" insetBlockStart="-2rem">
          <Spinner renderTitle="Updating the list" size="x-small" />
        </View>
      )}
      <Table caption="Connected courses" layout={narrow ? 'stacked' : 'auto'} hover>
        <Table.Head>
          <Table.Row>
            <Table.ColHeader id="course">Course</Table.ColHeader>
            <Table.ColHeader id="code">Code</Table.ColHeader>
            <Table.ColHeader id="quizzes">Exam browser required</Table.ColHeader>
            <Table.ColHeader id="issues">Issues</Table.ColHeader>
            <Table.ColHeader id="refreshed">Last refreshed</Table.ColHeader>
          </Table.Row>
        </Table.Head>
        <Table.Body>
          {rows.map((row) => (
            <Table.Row key={row.id}>
              <Table.RowHeader>
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
                    <Pill>Past</Pill>
                  </View>
                )}
              </Table.RowHeader>
              <Table.Cell>{row.courseCode || '—'}</Table.Cell>
              <Table.Cell>
                {row.enabledAssessmentCount} of {row.assessmentCount}
                <ScreenReaderContent> quizzes</ScreenReaderContent>
              </Table.Cell>
              <Table.Cell>
                {row.issueCount > 0 ? <Pill color="danger">{row.issueCount} to check</Pill> : <Text color="secondary">None</Text>}
              </Table.Cell>
              <Table.Cell>{relativeTime(row.lastRefreshedAt)}</Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </View>
  );
}
