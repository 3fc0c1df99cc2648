import { Button, Heading, Link, List, Pill, Spinner, Text, View } from '@instructure/ui';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { Page } from '../components/Page';
import { StatusAlert, type StatusVariant } from '../components/StatusAlert';
import { defineView } from '../lib/define-view';
import { localPath } from '../lib/launch';
import { httpUrl, z } from '../lib/zod';

const schema = z.object({
  proofUrl: localPath,
  /** The URL this page must have been opened at by the setup-check configuration. */
  expectedUrl: httpUrl,
  configUrl: httpUrl,
  /** The same download through the scheme the exam browser registers (`sebs://`, `seb://` on http), which starts it. */
  launchUrl: z.string().regex(/^sebs?:\/\/[^\s]+$/, 'Expected a seb:// or sebs:// URL'),
  quitUrl: httpUrl,
});

type Data = z.output<typeof schema>;

const checksFields = z.object({ configKey: z.boolean(), expectedUrl: z.boolean() });

/** A pass answers 200; a failed check is the contract's 403, whose body still says which check failed. */
const proofAnswerSchema = z.union([
  z.object({ success: z.literal(true), checks: checksFields }),
  z.object({ success: z.literal(false), error_code: z.literal(ErrorCodes.INVALID_EXB_SETUP_CHECK_PROOF), checks: checksFields }),
]);

type Checks = z.output<typeof checksFields>;

type State =
  | { phase: 'checking' }
  | { phase: 'no-page-api' }
  | { phase: 'no-key' }
  | { phase: 'done'; checks: Checks }
  | { phase: 'failed' };

/** What the exam browser puts on `window`; everything is checked, since any page could define it. */
type SecurityApi = { configKey?: unknown; updateKeys?: unknown };

// The macOS client calls back by evaluating `<callback.name>();`, so the callback must be a global of this name.
const KEYS_UPDATED_CALLBACK = 'exbSetupCheckKeysUpdated';
// Clients that never call back still have keys from page load; waiting longer would only delay the answer.
const UPDATE_KEYS_TIMEOUT_MS = 3000;

function securityApi(): SecurityApi | undefined {
  const api = (window as { SafeExamBrowser?: { security?: unknown } }).SafeExamBrowser;
  const security = api?.security;
  return typeof security === 'object' && security !== null ? (security as SecurityApi) : undefined;
}

function currentKey(security: SecurityApi): string | undefined {
  return typeof security.configKey === 'string' && security.configKey !== '' ? security.configKey : undefined;
}

/** Asks the browser to recompute the keys for this page's URL, then reads the Config Key hash. */
function readConfigKeyHash(security: SecurityApi): Promise<string | undefined> {
  const { updateKeys } = security;
  if (typeof updateKeys !== 'function') return Promise.resolve(currentKey(security));
  const globals = window as unknown as Record<string, unknown>;
  return new Promise((resolve) => {
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      window.clearTimeout(timer);
      delete globals[KEYS_UPDATED_CALLBACK];
      resolve(currentKey(security));
    };
    const timer = window.setTimeout(finish, UPDATE_KEYS_TIMEOUT_MS);
    const callback = () => finish();
    Object.defineProperty(callback, 'name', { value: KEYS_UPDATED_CALLBACK });
    globals[KEYS_UPDATED_CALLBACK] = callback;
    try {
      (updateKeys as (callback: () => void) => void).call(security, callback);
    } catch {
      finish();
    }
  });
}

async function postProof(proofUrl: string, configKeyHash: string): Promise<Checks> {
  const response = await fetch(proofUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ configKeyHash, url: window.location.href }),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (response.status !== 200 && response.status !== 403) throw new Error(`setup-check proof answered ${response.status}`);
  return proofAnswerSchema.parse(await response.json()).checks;
}

function ExbSetupCheck({ data }: { data: Data }) {
  const { t } = useTranslation(['pages', 'common']);
  const [state, setState] = useState<State>({ phase: 'checking' });

  const run = useCallback(async () => {
    setState({ phase: 'checking' });
    const security = securityApi();
    if (security === undefined) {
      setState({ phase: 'no-page-api' });
      return;
    }
    const configKeyHash = await readConfigKeyHash(security);
    if (configKeyHash === undefined) {
      setState({ phase: 'no-key' });
      return;
    }
    try {
      setState({ phase: 'done', checks: await postProof(data.proofUrl, configKeyHash) });
    } catch {
      setState({ phase: 'failed' });
    }
  }, [data.proofUrl]);

  useEffect(() => {
    void run();
  }, [run]);

  return (
    <Page title={t('setupCheck.title')}>
      <div data-setup-check-phase={state.phase}>
        {state.phase === 'checking' && (
          <View as="div" display="block" textAlign="center" padding="large">
            <Spinner renderTitle={t('setupCheck.checking')} size="medium" delay={300} />
          </View>
        )}
        {state.phase === 'no-page-api' && <NotInExamBrowser data={data} />}
        {state.phase === 'no-key' && (
          <Message variant="error">{t('setupCheck.noKey')}</Message>
        )}
        {state.phase === 'failed' && (
          <>
            <Message variant="error">{t('setupCheck.failed')}</Message>
            <Button onClick={() => void run()} margin="0 0 medium">
              {t('common:tryAgain')}
            </Button>
          </>
        )}
        {state.phase === 'done' && <Results checks={state.checks} />}
      </div>
      {state.phase !== 'no-page-api' && (
        <View as="div" display="block" margin="medium 0 0">
          <Link href={data.quitUrl} variant="standalone">
            {t('setupCheck.quit')}
          </Link>
        </View>
      )}
    </Page>
  );
}

function Message({ variant, children }: { variant: StatusVariant; children: string }) {
  return (
    <StatusAlert variant={variant} margin="0 0 medium" live="polite">
      <Text>{children}</Text>
    </StatusAlert>
  );
}

function NotInExamBrowser({ data }: { data: Data }) {
  const { t } = useTranslation('pages');
  return (
    <>
      <Message variant="warning">{t('setupCheck.notInExamBrowser')}</Message>
      <View as="section" display="block" margin="0 0 medium" aria-labelledby="start-heading">
        <Heading level="h2" id="start-heading" margin="0 0 small">
          {t('setupCheck.startHeading')}
        </Heading>
        <List margin="0 0 small">
          <List.Item>{t('setupCheck.stepInstall')}</List.Item>
          <List.Item>
            <Trans t={t} i18nKey="setupCheck.stepOpen" components={{ launch: <InlineLink href={data.launchUrl} /> }} />
          </List.Item>
          <List.Item>
            <Trans t={t} i18nKey="setupCheck.stepDownload" components={{ config: <InlineLink href={data.configUrl} /> }} />
          </List.Item>
        </List>
      </View>
    </>
  );
}

/** A link inside a translated sentence; the sentence's markup supplies its text. */
function InlineLink({ href, children }: { href: string; children?: ReactNode }) {
  return <Link href={href}>{children}</Link>;
}

/** The checks in the order they are listed; each has a title and a failure hint in `pages:setupCheck.<name>`. */
const CHECK_NAMES: readonly (keyof Checks)[] = ['configKey', 'expectedUrl'];

function Results({ checks }: { checks: Checks }) {
  const { t } = useTranslation('pages');
  const passed = checks.configKey && checks.expectedUrl;
  return (
    <>
      {passed ? (
        <Message variant="success">{t('setupCheck.ready')}</Message>
      ) : (
        <Message variant="error">{t('setupCheck.notReady')}</Message>
      )}
      <ul aria-label={t('setupCheck.checksLabel')} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {CHECK_NAMES.map((name) => (
          <li
            key={name}
            data-check={name}
            data-status={checks[name] ? 'passed' : 'failed'}
            style={{ marginBottom: '0.75rem' }}
          >
            <Pill color={checks[name] ? 'success' : 'danger'} margin="0 small 0 0">
              {checks[name] ? t('setupCheck.passed') : t('setupCheck.failedCheck')}
            </Pill>
            <Text>{t(`setupCheck.${name}.title`)}</Text>
            {!checks[name] && (
              <Text as="p" size="small" color="secondary">
                {t(`setupCheck.${name}.failure`)}
              </Text>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

export default defineView(schema, ExbSetupCheck);
