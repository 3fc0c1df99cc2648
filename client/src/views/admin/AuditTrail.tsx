import { Button, Flex, Heading, Link, SimpleSelect, Spinner, Text, TextInput, View } from '@instructure/ui';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AUDIT_EXPORT_ROUTE } from '@exb/shared/service-paths.js';
import { CursorPager, useCursorPages } from '../../components/CursorPager';
import { DataTable, type TableColumn } from '../../components/DataTable';
import { StatusAlert } from '../../components/StatusAlert';
import { AUDIT_ACTION_LABEL, auditActionLabel, auditActorLabel, AUDIT_OUTCOME_LABEL, formatTime } from '../../lib/audit-labels';
import { withSessionToken } from '../../lib/session-token';
import { readServerError, useTRPC, type RouterOutputs } from '../../lib/trpc';
import { pagerLabels } from './pager';

type AuditEntry = RouterOutputs['admin']['audit']['list']['entries'][number];

/** The filters as the form holds them: dates as the date inputs give them (`YYYY-MM-DD`, local days). */
interface FilterForm {
  courseId: string;
  userId: string;
  action: string;
  from: string;
  to: string;
}

const EMPTY: FilterForm = { courseId: '', userId: '', action: '', from: '', to: '' };
/** The CSV holds at most this many entries (the newest). */
const CSV_LIMIT = 10_000;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function validDay(value: string): boolean {
  return DAY.test(value) && !Number.isNaN(new Date(`${value}T00:00:00`).getTime());
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
  const { t, i18n } = useTranslation('admin');
  const trpc = useTRPC();
  const [form, setForm] = useState<FilterForm>(EMPTY);
  const [applied, setApplied] = useState<Record<string, string>>({});
  const pages = useCursorPages();
  const page = useQuery({
    ...trpc.admin.audit.list.queryOptions({ ...applied, ...(pages.cursor !== undefined ? { cursor: pages.cursor } : {}) }),
    placeholderData: keepPreviousData,
  });
  const set = (key: keyof FilterForm) => (_event: unknown, value: string) => setForm((current) => ({ ...current, [key]: value }));
  const dayMessage = (value: string) => (value === '' || validDay(value) ? [] : [{ type: 'newError' as const, text: t('audit.dayFormat') }]);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    if ((form.from !== '' && !validDay(form.from)) || (form.to !== '' && !validDay(form.to))) return;
    setApplied(serverFilter(form));
    pages.reset();
  };
  const csvHref = withSessionToken(`${AUDIT_EXPORT_ROUTE.path}?${new URLSearchParams(applied).toString()}`);
  const actions: [string, string][] = [
    ['', t('audit.allActions')],
    ['enforcement.', t('audit.anyEnforcement')],
    ['password.', t('audit.anyPassword')],
    ...Object.entries(AUDIT_ACTION_LABEL),
  ];

  return (
    <View as="section" display="block" aria-labelledby="audit-heading">
      <Heading level="h2" id="audit-heading" margin="0 0 small">
        {t('audit.heading')}
      </Heading>
      <Text as="p">{t('audit.intro')}</Text>
      <form onSubmit={apply} aria-label={t('audit.filterForm')}>
        <Flex gap="small" wrap="wrap" alignItems="end" margin="small 0">
          <Flex.Item size="9rem" shouldGrow shouldShrink>
            <TextInput renderLabel={t('audit.courseId')} value={form.courseId} onChange={set('courseId')} inputMode="numeric" />
          </Flex.Item>
          <Flex.Item size="9rem" shouldGrow shouldShrink>
            <TextInput renderLabel={t('audit.userId')} value={form.userId} onChange={set('userId')} inputMode="numeric" />
          </Flex.Item>
          <Flex.Item size="14rem" shouldGrow shouldShrink>
            <SimpleSelect renderLabel={t('audit.action')} value={form.action} onChange={(_event, { value }) => setForm((current) => ({ ...current, action: String(value ?? '') }))}>
              {actions.map(([value, label]) => (
                <SimpleSelect.Option key={value || 'all'} id={`audit-action-${value || 'all'}`} value={value}>
                  {label}
                </SimpleSelect.Option>
              ))}
            </SimpleSelect>
          </Flex.Item>
          <Flex.Item size="10rem" shouldGrow shouldShrink>
            <TextInput renderLabel={t('audit.from')} placeholder={t('audit.dayPlaceholder')} value={form.from} onChange={set('from')} messages={dayMessage(form.from)} />
          </Flex.Item>
          <Flex.Item size="10rem" shouldGrow shouldShrink>
            <TextInput renderLabel={t('audit.to')} placeholder={t('audit.dayPlaceholder')} value={form.to} onChange={set('to')} messages={dayMessage(form.to)} />
          </Flex.Item>
          <Button type="submit" color="primary">
            {t('audit.filter')}
          </Button>
        </Flex>
      </form>
      <View as="div" margin="0 0 small">
        <Link href={csvHref} download>
          {t('audit.csv', { limit: CSV_LIMIT.toLocaleString(i18n.language) })}
        </Link>
      </View>
      {page.isError && <StatusAlert>{t('audit.loadFailed', { reason: readServerError(page.error).message })}</StatusAlert>}
      {page.data === undefined ? (
        !page.isError && <Spinner renderTitle={t('audit.loading')} size="small" />
      ) : page.data.entries.length === 0 ? (
        <Text as="p" color="secondary">
          {t('audit.none')}
        </Text>
      ) : (
        <AuditTable entries={page.data.entries} />
      )}
      <CursorPager pages={pages} nextCursor={page.data?.nextCursor} labels={pagerLabels(t('audit.pages'), 'entries')} margin="small 0 0" />
    </View>
  );
}

function AuditTable({ entries }: { entries: readonly AuditEntry[] }) {
  const { t } = useTranslation('admin');
  const columns: TableColumn<AuditEntry>[] = [
    { id: 'audit-when', header: t('audit.column.when'), render: (entry) => formatTime(entry.occurredAt) },
    { id: 'audit-what', header: t('audit.column.what'), render: (entry) => auditActionLabel(entry.action) },
    { id: 'audit-who', header: t('audit.column.who'), render: (entry) => auditActorLabel(entry.actor) },
    {
      id: 'audit-where',
      header: t('audit.column.where'),
      render: (entry) => [entry.courseName ?? entry.courseId ?? '—', entry.assessmentTitle ?? entry.contentId].filter((part) => part !== null).join(' · '),
    },
    { id: 'audit-outcome', header: t('audit.column.outcome'), render: (entry) => AUDIT_OUTCOME_LABEL[entry.outcome] ?? entry.outcome },
  ];
  return <DataTable caption={t('audit.caption')} columns={columns} rows={entries} rowKey={(entry) => entry.id} />;
}
