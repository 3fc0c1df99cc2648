import { Alert, Heading, Link, List, Pill, Text, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DefinitionList, type DefinitionItem } from '../components/DefinitionList';
import { Page } from '../components/Page';
import { i18next } from '../i18n/i18n';
import { defineView } from '../lib/define-view';
import { httpUrl, optional, z } from '../lib/zod';

/** Present only when the testbed is enabled; extra keys are shown as they come. */
const testbedSchema = z.looseObject({
  lmsUrl: optional(httpUrl),
  launchPageUrl: optional(httpUrl),
  ltiClientId: optional(z.string()),
  deploymentIds: optional(z.array(z.string())),
  databaseMode: optional(z.string()),
  configEncryptionEnabled: optional(z.boolean()),
});

/** The last authorization the LMS refused for a reason only an administrator can fix (the developer key). */
const refusalSchema = z.object({
  at: z.string().min(1),
  error: z.string().min(1),
  missingScopes: z.array(z.string().min(1)),
});

const schema = z.object({
  serviceName: optional(z.string().min(1)),
  /** The liveness status, `UP` when healthy. */
  status: optional(z.string().min(1)),
  version: optional(z.string().min(1)),
  testbed: optional(testbedSchema),
  lmsRefusal: optional(refusalSchema),
});

type Data = z.output<typeof schema>;
type Testbed = z.output<typeof testbedSchema>;
type Refusal = z.output<typeof refusalSchema>;

/** Diagnostics keys with a label of their own in `pages:status.testbed.labels`; others are shown by their name. */
const LABELLED_KEYS = ['lmsUrl', 'launchPageUrl', 'ltiIssuer', 'ltiClientId', 'deploymentIds', 'databaseMode', 'configEncryptionEnabled', 'baseUrl'] as const;

function labelOf(key: string): string {
  const labelled = LABELLED_KEYS.find((known) => known === key);
  return labelled === undefined ? humanize(key) : i18next.t(`pages:status.testbed.labels.${labelled}`);
}

function ServiceStatus({ data }: { data: Data }) {
  const { t } = useTranslation(['pages', 'common']);
  // The page is rendered by the running service, so no status means it is up.
  const status = data.status ?? 'UP';
  const healthy = status.toUpperCase() === 'UP';

  return (
    <Page
      title={data.serviceName ?? t('common:serviceName')}
      headingAside={
        <Pill color={healthy ? 'success' : 'warning'} statusLabel={t('status.statusLabel')}>
          {healthy ? t('status.running') : status}
        </Pill>
      }
    >
      <View as="div" display="block" margin="0 0 medium">
        <Text as="p">{t('status.about')}</Text>
        <Text as="p">{t('status.nothingToDo')}</Text>
        {data.version !== undefined && (
          <Text as="p" size="small" color="secondary">
            {t('status.version', { version: data.version })}
          </Text>
        )}
        <Link href="/setup">{t('status.setupLink')}</Link>
      </View>
      {data.lmsRefusal !== undefined && <LmsRefusal refusal={data.lmsRefusal} />}
      {data.testbed !== undefined && <TestbedDiagnostics testbed={data.testbed} />}
    </Page>
  );
}

function LmsRefusal({ refusal }: { refusal: Refusal }) {
  const { t, i18n } = useTranslation(['pages', 'common']);
  const instant = new Date(refusal.at);
  const at = Number.isNaN(instant.getTime())
    ? refusal.at
    : new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'medium' }).format(instant);
  const values = { at, error: refusal.error };
  return (
    <View as="section" display="block" aria-labelledby="lms-refusal-heading" margin="large 0 0">
      <Heading level="h2" id="lms-refusal-heading" margin="0 0 small">
        {t('status.lmsRefusal.heading')}
      </Heading>
      <Alert variant="warning" variantScreenReaderLabel={t('common:variant.warning')} hasShadow={false} margin="0 0 small">
        {refusal.error === 'invalid_scope' ? t('status.lmsRefusal.scope', values) : t('status.lmsRefusal.other', values)}
      </Alert>
      {refusal.missingScopes.length > 0 && (
        <>
          <Heading level="h3" id="lms-refusal-scopes" margin="small 0 xx-small">
            {t('status.lmsRefusal.missingScopes')}
          </Heading>
          <List isUnstyled margin="0 0 small" itemSpacing="xx-small" aria-labelledby="lms-refusal-scopes">
            {refusal.missingScopes.map((scope) => (
              <List.Item key={scope}>
                <code className="exb-value">{scope}</code>
              </List.Item>
            ))}
          </List>
        </>
      )}
      <Text as="p" size="small" color="secondary">
        {t('status.lmsRefusal.note')}
      </Text>
      <Link href="/setup/guide#api-key-scopes">{t('status.lmsRefusal.fix')}</Link>
    </View>
  );
}

function TestbedDiagnostics({ testbed }: { testbed: Testbed }) {
  const { t } = useTranslation(['pages', 'common']);
  const items: DefinitionItem[] = Object.entries(testbed)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ({ key, term: labelOf(key), description: formatValue(key, value) }));

  return (
    <View as="section" display="block" aria-labelledby="testbed-heading" margin="large 0 0">
      <Heading level="h2" id="testbed-heading" margin="0 0 small">
        {t('status.testbed.heading')}
      </Heading>
      <Alert variant="warning" variantScreenReaderLabel={t('common:variant.warning')} hasShadow={false} margin="0 0 medium">
        {t('status.testbed.warning')}
      </Alert>
      {items.length > 0 ? (
        <DefinitionList items={items} label={t('status.testbed.listLabel')} />
      ) : (
        <Text as="p">{t('status.testbed.empty')}</Text>
      )}
      {testbed.launchPageUrl !== undefined && (
        <View as="div" display="block" margin="medium 0 0">
          <Link href={testbed.launchPageUrl}>{t('status.testbed.openLaunchPage')}</Link>
        </View>
      )}
    </View>
  );
}

function formatValue(key: string, value: unknown): ReactNode {
  if (value === null) return '—';
  if (typeof value === 'boolean') {
    if (/enabled$/i.test(key)) return i18next.t(value ? 'pages:status.testbed.enabled' : 'pages:status.testbed.disabled');
    return i18next.t(value ? 'pages:status.testbed.yes' : 'pages:status.testbed.no');
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
    return <span className="exb-inline-code">{String(value)}</span>;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return i18next.t('pages:status.testbed.none');
    return value.map((entry, index) => (
      <span key={index}>
        {index > 0 && ', '}
        <span className="exb-inline-code">{typeof entry === 'string' ? entry : JSON.stringify(entry)}</span>
      </span>
    ));
  }
  return <span className="exb-inline-code">{JSON.stringify(value)}</span>;
}

/** `someFlagName` → `Some flag name`, for diagnostics keys without a label of their own. */
function humanize(key: string): string {
  const words = key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export default defineView(schema, ServiceStatus);
