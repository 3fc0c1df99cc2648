import { Alert, Button, Flex, Heading, Link, SimpleSelect, Spinner, Table, Text, TextInput, View } from '@instructure/ui';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { AUDIT_ACTION_LABEL, auditActionLabel, auditActorLabel, AUDIT_OUTCOME_LABEL, formatTime } from '../../lib/audit-labels';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useMediaQuery } from '../../lib/use-media-query';

/** The filters as the form holds them: dates as the date inputs give them (`YYYY-MM-DD`, local days). */
interface FilterForm {
  courseId: string;
  userId: string;
  action: string;
  from: string;
  to: string;
}

const EMPTY: FilterForm = { courseId: '', userId: '', action: '', from: '', to: '' };
const ACTION_AREAS: [string, string][] = [
  ['', 'All actions'],
  ['enforcement.', 'Enforcement (any)'],
  ['password.', 'Passwords (any)'],
  ...Object.entries(AUDIT_ACTION_LABEL),
];

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function validDay(value: string): boolean {
  return DAY.test(value) && !Number.isNaN(new Date(`${value}T00:00:00`).getTime());
}

function dayMessage(value: string) {
  return value === '' || validDay(value) ? [] : [{ type: 'newError' as const, text: 'Write the day as YYYY-MM-DD.' }];
}

/** The filters as the server reads them (list input and CSV query alike): blanks left out, days as instants. */
function serverFilter(form: FilterForm): Record<string, string> {
  const filter: Record<string, string> = {};
  if (form.courseId.trim() !== '') filter.courseId = form.courseId.trim();
  if (form.userId.trim() !== '') filter.userId = form.userId.trim();
  if (form.action !== '') filter.action = form.action;
  // "To" includes its whole day: the filter is before the start of the next one.
  if (validDay(form.from)) filter.from = new Date(`${form.from}T00:00:00`).toISOString();
  if (validDay(form.to)) filter.to = new Date(new Date(`${form.to}T00:00:00`).getTime() + 86_400_000).toISOString();
  return filter;
}

/** The account's audit trail: who changed what in enforcement and its secrets, filtered, paged and exported as CSV. */
export function AuditTrail() {
  const trpc = useTRPC();
  const narrow = useMediaQuery('(max-width: 44rem)');
  const [form, setForm] = useState<FilterForm>(EMPTY);
  const [applied, setApplied] = useState<Record<string, string>>({});
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    ...trpc.admin.audit.list.queryOptions({ ...applied, ...(cursor !== undefined ? { cursor } : {}) }),
    placeholderData: keepPreviousData,
  });
  const set = (key: keyof FilterForm) => (_event: unknown, value: string) => setForm((current) => ({ ...current, [key]: value }));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    if ((form.from !== '' && !validDay(form.from)) || (form.to !== '' && !validDay(form.to))) return;
    setApplied(serverFilter(form));
    setCursors([undefined]);
  };
  const csvHref = `/api/admin/audit.csv?${new URLSearchParams(applied).toString()}`;

  return (
    <View as="section" display="block" aria-labelledby="audit-heading">
      <Heading level="h2" id="audit-heading" margin="0 0 small">
        Audit trail
      </Heading>
      <Text as="p">Every change to enforcement, passwords and access codes in the connected courses, newest first. Secrets are never recorded.</Text>
      <form onSubmit={apply} aria-label="Filter the audit trail">
        <Flex gap="small" wrap="wrap" alignItems="end" margin="small 0">
          <Flex.Item size="9rem" shouldGrow shouldShrink>
            <TextInput renderLabel="Course id" value={form.courseId} onChange={set('courseId')} inputMode="numeric" />
          </Flex.Item>
          <Flex.Item size="9rem" shouldGrow shouldShrink>
            <TextInput renderLabel="LMS user id" value={form.userId} onChange={set('userId')} inputMode="numeric" />
          </Flex.Item>
          <Flex.Item size="14rem" shouldGrow shouldShrink>
            <SimpleSelect renderLabel="Action" value={form.action} onChange={(_event, { value }) => setForm((current) => ({ ...current, action: String(value ?? '') }))}>
              {ACTION_AREAS.map(([value, label]) => (
                <SimpleSelect.Option key={value || 'all'} id={`audit-action-${value || 'all'}`} value={value}>
                  {label}
                </SimpleSelect.Option>
              ))}
            </SimpleSelect>
          </Flex.Item>
          <Flex.Item size="10rem" shouldGrow shouldShrink>
            <TextInput renderLabel="From (day)" placeholder="YYYY-MM-DD" value={form.from} onChange={set('from')} messages={dayMessage(form.from)} />
          </Flex.Item>
          <Flex.Item size="10rem" shouldGrow shouldShrink>
            <TextInput renderLabel="To (day, included)" placeholder="YYYY-MM-DD" value={form.to} onChange={set('to')} messages={dayMessage(form.to)} />
          </Flex.Item>
          <Button type="submit" color="primary">
            Filter
          </Button>
        </Flex>
      </form>
      <View as="div" margin="0 0 small">
        <Link href={csvHref} download>
          Download as CSV (these filters, up to 10,000 newest entries)
        </Link>
      </View>
      {page.isError && (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
          The audit trail could not be loaded: {readServerError(page.error).message}
        </Alert>
      )}
      {page.data === undefined ? (
        !page.isError && <Spinner renderTitle="Loading the audit trail" size="small" />
      ) : page.data.entries.length === 0 ? (
        <Text as="p" color="secondary">
          No entries match these filters.
        </Text>
      ) : (
        <Table caption="Audit trail entries, newest first" layout={narrow ? 'stacked' : 'auto'}>
          <Table.Head>
            <Table.Row>
              <Table.ColHeader id="audit-when">When</Table.ColHeader>
              <Table.ColHeader id="audit-what">What</Table.ColHeader>
              <Table.ColHeader id="audit-who">Who</Table.ColHeader>
              <Table.ColHeader id="audit-where">Course and assessment</Table.ColHeader>
              <Table.ColHeader id="audit-outcome">Outcome</Table.ColHeader>
            </Table.Row>
          </Table.Head>
          <Table.Body>
            {page.data.entries.map((entry) => (
              <Table.Row key={entry.id}>
                <Table.Cell>{formatTime(entry.occurredAt)}</Table.Cell>
                <Table.Cell>{auditActionLabel(entry.action)}</Table.Cell>
                <Table.Cell>{auditActorLabel(entry.actor)}</Table.Cell>
                <Table.Cell>
                  {entry.courseId ?? '—'}
                  {entry.contentId !== null && ` · ${entry.contentId}`}
                </Table.Cell>
                <Table.Cell>{AUDIT_OUTCOME_LABEL[entry.outcome] ?? entry.outcome}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table>
      )}
      <Flex gap="small" margin="small 0 0">
        {cursors.length > 1 && <Button onClick={() => setCursors((list) => list.slice(0, -1))}>Newer entries</Button>}
        {page.data?.nextCursor != null && (
          <Button onClick={() => setCursors((list) => [...list, page.data!.nextCursor ?? undefined])}>Older entries</Button>
        )}
      </Flex>
    </View>
  );
}
