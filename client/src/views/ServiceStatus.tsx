import { Alert, Heading, Link, Pill, Text, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { DefinitionList, type DefinitionItem } from '../components/DefinitionList';
import { Page, SERVICE_NAME } from '../components/Page';
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

const schema = z.object({
  serviceName: optional(z.string().min(1)),
  /** The liveness status, `UP` when healthy. */
  status: optional(z.string().min(1)),
  version: optional(z.string().min(1)),
  testbed: optional(testbedSchema),
});

type Data = z.output<typeof schema>;
type Testbed = z.output<typeof testbedSchema>;

const TESTBED_LABELS: Record<string, string> = {
  lmsUrl: 'LMS URL',
  launchPageUrl: 'Launch page',
  ltiIssuer: 'LTI issuer',
  ltiClientId: 'LTI client ID',
  deploymentIds: 'LTI deployment IDs',
  databaseMode: 'Database',
  configEncryptionEnabled: 'Configuration encryption',
  baseUrl: 'Service URL',
};

function ServiceStatus({ data }: { data: Data }) {
  // The page is rendered by the running service, so no status means it is up.
  const status = data.status ?? 'UP';
  const healthy = status.toUpperCase() === 'UP';

  return (
    <Page
      title={data.serviceName ?? SERVICE_NAME}
      headingAside={
        <Pill color={healthy ? 'success' : 'warning'} statusLabel="Status">
          {healthy ? 'Running' : status}
        </Pill>
      }
    >
      <View as="div" display="block" margin="0 0 medium">
        <Text as="p">
          This service lets instructors require that chosen quizzes in the LMS are taken in a secure exam browser.
          Students who open such a quiz download a one-time configuration that starts the exam browser, and only the
          exam browser receives the quiz&apos;s access code.
        </Text>
        <Text as="p">
          There is nothing to do on this page: open the tool from the navigation of your course or account in the LMS.
        </Text>
        {data.version !== undefined && (
          <Text as="p" size="small" color="secondary">
            Version {data.version}
          </Text>
        )}
        <Link href="/setup">Setup information for LMS administrators</Link>
      </View>
      {data.testbed !== undefined && <TestbedDiagnostics testbed={data.testbed} />}
    </Page>
  );
}

function TestbedDiagnostics({ testbed }: { testbed: Testbed }) {
  const items: DefinitionItem[] = Object.entries(testbed)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ({ key, term: TESTBED_LABELS[key] ?? humanize(key), description: formatValue(key, value) }));

  return (
    <View as="section" display="block" aria-labelledby="testbed-heading" margin="large 0 0">
      <Heading level="h2" id="testbed-heading" margin="0 0 small">
        Testbed diagnostics
      </Heading>
      <Alert variant="warning" variantScreenReaderLabel="Warning," hasShadow={false} margin="0 0 medium">
        The testbed is enabled. It shows configuration details publicly and must be turned off in production.
      </Alert>
      {items.length > 0 ? (
        <DefinitionList items={items} label="Testbed configuration" />
      ) : (
        <Text as="p">No diagnostics were provided.</Text>
      )}
      {testbed.launchPageUrl !== undefined && (
        <View as="div" display="block" margin="medium 0 0">
          <Link href={testbed.launchPageUrl}>Open the testbed launch page</Link>
        </View>
      )}
    </View>
  );
}

function formatValue(key: string, value: unknown): ReactNode {
  if (value === null) return '—';
  if (typeof value === 'boolean') {
    if (/enabled$/i.test(key)) return value ? 'Enabled' : 'Disabled';
    return value ? 'Yes' : 'No';
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
    return <span className="exb-inline-code">{String(value)}</span>;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return 'None';
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
