import {
  Alert,
  Heading,
  IconExternalLinkLine,
  Link,
  List,
  ScreenReaderContent,
  Table,
  Text,
  ToggleDetails,
  View,
} from '@instructure/ui';
import { LTI_LAUNCH_ROUTE, LTI_LOGIN_ROUTE, OAUTH_CALLBACK_ROUTE, THEME_LOADER_ROUTE } from '@exb/shared/service-paths.js';
import { useId, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { CopyButton } from '../components/CopyButton';
import { CopyableValue } from '../components/CopyableValue';
import { Page } from '../components/Page';
import { defineView } from '../lib/define-view';
import { useMediaQuery } from '../lib/use-media-query';
import { httpUrl, optional, z } from '../lib/zod';

const scopeList = z.array(z.string().min(1));

const schema = z.object({
  toolUrl: httpUrl,
  healthUrl: httpUrl,
  ltiConfigUrl: httpUrl,
  jwksUrl: httpUrl,
  detectorUrl: httpUrl,
  detailed: optional(z.boolean()),
  themeLoaderUrl: optional(httpUrl),
  oauthRedirectUri: optional(httpUrl),
  ltiLoginUrl: optional(httpUrl),
  ltiLaunchUrl: optional(httpUrl),
  /** The configured LTI_ISSUER, when the server chooses to show it. */
  ltiIssuer: optional(z.string().min(1)),
  applicationScopes: optional(scopeList),
  adminScopes: optional(scopeList),
  /** The exam-day board's read scopes, and whether the service asks for them (`LMS_OAUTH_EXAM_DAY_SCOPES`). */
  examDayScopes: optional(scopeList),
  examDayScopesRequested: optional(z.boolean()),
  /** The LMS origin (`LMS_URL`), for the developer keys API call. */
  lmsUrl: optional(httpUrl),
});

type Data = z.output<typeof schema>;

const GUIDE_PATH = '/setup/guide';
const SUMMARY_PATH = '/setup';

/** The issuer hosted LMS instances share; self-hosted ones configure their own. */
const HOSTED_LMS_ISSUER = 'https://canvas.instructure.com';

// These paths are fixed public surfaces of the service, so they can be derived when the page
// data leaves them out.
function serviceUrl(toolUrl: string, path: string): string {
  return new URL(path, toolUrl).href;
}

/** The one line a school adds to its theme JavaScript; JSON quoting keeps the URL a literal. */
function themeLoaderSnippet(loaderUrl: string): string {
  return `(function(d){var s=d.createElement('script');s.src=${JSON.stringify(loaderUrl)};s.async=true;d.head.appendChild(s);})(document);`;
}

/**
 * The developer keys API call that gives the API key every scope, Enforce Scopes and Allow Include Parameters
 * (Canvas `developer_keys_controller.rb#update`, `developer_key[scopes][]` replaces the whole list). The key editor
 * cannot add `url:GET|/api/v1/login/session_token`, which is no documented API method.
 */
function developerKeyCall(lmsUrl: string, scopes: readonly string[]): string {
  const body = JSON.stringify({ developer_key: { require_scopes: true, allow_includes: true, scopes } });
  return [
    `curl -X PUT '${new URL('/api/v1/developer_keys/KEY_ID', lmsUrl).href}' \\`,
    "  -H 'Authorization: Bearer ADMIN_TOKEN' \\",
    "  -H 'Content-Type: application/json' \\",
    `  --data '${body}'`,
  ].join('\n');
}

function AdminSetup({ data }: { data: Data }) {
  return data.detailed === true ? <SetupGuide data={data} /> : <SetupSummary data={data} />;
}

/** The markup of the guide's sentences: LMS interface labels, emphasis and code. */
const MARKUP = { ui: <Ui />, strong: <strong />, code: <code className="exb-inline-code" /> };

/** A sentence of the guide (`pages:setup.<key>`) with its markup. */
function Say({ k, values }: { k: SetupSentence; values?: Record<string, string> }) {
  const { t } = useTranslation('pages');
  return <Trans t={t} i18nKey={k} components={MARKUP} values={values} />;
}

type SetupSentence =
  | 'setup.summary.healthUrlHint'
  | `setup.step1.${'open' | 'choose' | 'method' | 'manualIntro' | 'save'}`
  | `setup.step2.${'open' | 'add' | 'deployment'}`
  | `setup.step3.${'create' | 'redirect' | 'scopes' | 'save' | 'apiIntro' | 'apiToken' | 'apiRun' | 'apiCheck'}`
  | `setup.step4.${'open' | 'upload'}`
  | `setup.step5.${'intro' | 'health'}`;

const HEALTHY_BODY = { body: '{"status":"UP"}' };

function SetupSummary({ data }: { data: Data }) {
  const { t } = useTranslation('pages');
  return (
    <Page title={t('setup.summary.title')}>
      <Text as="p">{t('setup.summary.intro')}</Text>
      <View as="div" display="block" margin="0 0 large">
        <Link href={GUIDE_PATH} variant="standalone">
          {t('setup.summary.guideLink')}
        </Link>
      </View>
      <View as="section" display="block" aria-labelledby="addresses-heading">
        <Heading level="h2" id="addresses-heading" margin="0 0 small">
          {t('setup.summary.addressesHeading')}
        </Heading>
        <CopyableValue label={t('setup.summary.toolUrl')} value={data.toolUrl} description={t('setup.summary.toolUrlHint')} />
        <CopyableValue
          label={t('setup.labels.healthUrl')}
          value={data.healthUrl}
          description={<Say k="setup.summary.healthUrlHint" values={HEALTHY_BODY} />}
        />
        <CopyableValue label={t('setup.labels.ltiConfigUrl')} value={data.ltiConfigUrl} description={t('setup.summary.ltiConfigUrlHint')} />
        <CopyableValue label={t('setup.labels.jwksUrl')} value={data.jwksUrl} description={t('setup.summary.jwksUrlHint')} />
        <CopyableValue label={t('setup.summary.detectorUrl')} value={data.detectorUrl} description={t('setup.summary.detectorUrlHint')} />
      </View>
    </Page>
  );
}

function SetupGuide({ data }: { data: Data }) {
  const { t } = useTranslation(['pages', 'common']);
  const loginUrl = data.ltiLoginUrl ?? serviceUrl(data.toolUrl, LTI_LOGIN_ROUTE.path);
  const launchUrl = data.ltiLaunchUrl ?? serviceUrl(data.toolUrl, LTI_LAUNCH_ROUTE.path);
  const redirectUri = data.oauthRedirectUri ?? serviceUrl(data.toolUrl, OAUTH_CALLBACK_ROUTE.path);
  const loaderUrl = data.themeLoaderUrl ?? serviceUrl(data.toolUrl, THEME_LOADER_ROUTE.path);

  return (
    <Page title={t('setup.guide.title')}>
      <Text as="p">{t('setup.guide.intro')}</Text>
      <Alert variant="info" variantScreenReaderLabel={t('setup.guide.beforeLabel')} hasShadow={false} margin="0 0 small">
        {t('setup.guide.before')}
      </Alert>
      <View as="div" display="block" margin="0 0 large">
        <Link href={SUMMARY_PATH}>{t('setup.guide.backToSummary')}</Link>
      </View>

      <Step number={1} title={t('setup.step1.title')}>
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            <Say k="setup.step1.open" />
          </List.Item>
          <List.Item>
            <Say k="setup.step1.choose" />
          </List.Item>
          <List.Item>
            <Say k="setup.step1.method" />
            <View as="div" display="block" margin="small 0 0">
              <CopyableValue label={t('setup.labels.ltiConfigUrl')} value={data.ltiConfigUrl} />
              <CopyableValue label={t('setup.step1.redirectUri')} value={launchUrl} />
            </View>
            <ToggleDetails summary={t('setup.step1.manualSummary')} size="small">
              <Text as="p">
                <Say k="setup.step1.manualIntro" />
              </Text>
              <CopyableValue label={t('setup.step1.targetLinkUri')} value={launchUrl} />
              <CopyableValue label={t('setup.step1.loginUrl')} value={loginUrl} />
              <CopyableValue label={t('setup.labels.jwksUrl')} value={data.jwksUrl} />
            </ToggleDetails>
          </List.Item>
          <List.Item>
            <Say k="setup.step1.save" />
          </List.Item>
        </List>
      </Step>

      <Step number={2} title={t('setup.step2.title')}>
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            <Say k="setup.step2.open" />
          </List.Item>
          <List.Item>
            <Say k="setup.step2.add" />
          </List.Item>
          <List.Item>
            <Say k="setup.step2.deployment" />
          </List.Item>
        </List>
      </Step>

      <Step number={3} title={t('setup.step3.title')}>
        <Text as="p">{t('setup.step3.intro')}</Text>
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            <Say k="setup.step3.create" />
          </List.Item>
          <List.Item>
            <Say k="setup.step3.redirect" />
            <View as="div" display="block" margin="small 0 0">
              <CopyableValue label={t('setup.step3.redirectUri')} value={redirectUri} />
            </View>
          </List.Item>
          <List.Item>
            <Say k="setup.step3.scopes" />
            <ScopeList title={t('setup.step3.applicationScopes')} description={t('setup.step3.applicationScopesHint')} scopes={data.applicationScopes} />
            <ScopeList title={t('setup.step3.adminScopes')} description={t('setup.step3.adminScopesHint')} scopes={data.adminScopes} />
            <ScopeList
              title={t('setup.step3.examDayScopes')}
              description={t(data.examDayScopesRequested === true ? 'setup.step3.examDayScopesRequested' : 'setup.step3.examDayScopesHint')}
              scopes={data.examDayScopes}
            />
          </List.Item>
          <List.Item>
            <Say k="setup.step3.save" />
          </List.Item>
        </List>
        <Heading level="h3" id="api-key-scopes" margin="medium 0 xx-small">
          {t('setup.step3.apiTitle')}
        </Heading>
        <Text as="p">
          <Say k="setup.step3.apiIntro" />
        </Text>
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            <Say k="setup.step3.apiToken" />
          </List.Item>
          <List.Item>
            <Say k="setup.step3.apiRun" />
            <View as="div" display="block" margin="small 0 0">
              <CopyableValue
                label={t('setup.step3.apiCall')}
                value={developerKeyCall(data.lmsUrl ?? 'https://lms.example.edu', [
                  ...(data.applicationScopes ?? []),
                  ...(data.adminScopes ?? []),
                  ...(data.examDayScopes ?? []),
                ])}
                block
              />
            </View>
          </List.Item>
          <List.Item>
            <Say k="setup.step3.apiCheck" />
          </List.Item>
        </List>
      </Step>

      <Step number={4} title={t('setup.step4.title')}>
        <Text as="p">{t('setup.step4.intro')}</Text>
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            <Say k="setup.step4.open" />
          </List.Item>
          <List.Item>
            <Say k="setup.step4.upload" />
            <View as="div" display="block" margin="small 0 0">
              <CopyableValue label={t('setup.step4.snippet')} value={themeLoaderSnippet(loaderUrl)} block />
              <CopyableValue label={t('setup.step4.loaderUrl')} value={loaderUrl} />
            </View>
          </List.Item>
          <List.Item>{t('setup.step4.apply')}</List.Item>
        </List>
      </Step>

      <Step number={5} title={t('setup.step5.title')}>
        <Text as="p">
          <Say k="setup.step5.intro" />
        </Text>
        <EnvironmentTable issuer={data.ltiIssuer} />
        <CopyableValue
          label={t('setup.step5.template')}
          description={t('setup.step5.templateHint')}
          value={environmentTemplate(data.ltiIssuer ?? HOSTED_LMS_ISSUER)}
          block
        />
        <Text as="p">
          <Say k="setup.step5.health" values={HEALTHY_BODY} />
        </Text>
        <CopyableValue label={t('setup.labels.healthUrl')} value={data.healthUrl} />
        <Link href={data.healthUrl} target="_blank" rel="noopener" renderIcon={<IconExternalLinkLine />} iconPlacement="end">
          {t('setup.step5.openHealth')}
          <ScreenReaderContent> {t('setup.step5.newTab')}</ScreenReaderContent>
        </Link>
        <Text as="p">{t('setup.step5.finally')}</Text>
      </Step>
    </Page>
  );
}

function Step({ number, title, children }: { number: number; title: string; children: ReactNode }) {
  const { t } = useTranslation('pages');
  const headingId = useId();
  return (
    <View
      as="section"
      display="block"
      aria-labelledby={headingId}
      borderWidth="small"
      borderRadius="medium"
      padding="medium"
      margin="0 0 medium"
    >
      <Heading level="h2" id={headingId} margin="0 0 small">
        {t('setup.guide.step', { number: String(number), title })}
      </Heading>
      {children}
    </View>
  );
}

/** Interface labels in the LMS, set apart so they can be found on screen. */
function Ui({ children }: { children?: ReactNode }) {
  return <strong>{children}</strong>;
}

function ScopeList({
  title,
  description,
  scopes,
}: {
  title: string;
  description: string;
  scopes: readonly string[] | undefined;
}) {
  const { t } = useTranslation('pages');
  const headingId = useId();
  return (
    <View as="div" display="block" margin="small 0">
      <Heading level="h3" id={headingId} margin="0 0 xx-small">
        {title}
      </Heading>
      <Text as="div" size="small" color="secondary">
        {description}
      </Text>
      {scopes === undefined || scopes.length === 0 ? (
        <Alert variant="warning" hasShadow={false} margin="x-small 0 0">
          {t('setup.step3.scopesMissing')}
        </Alert>
      ) : (
        <List isUnstyled margin="x-small 0 0" itemSpacing="xx-small" aria-labelledby={headingId}>
          {scopes.map((scope) => (
            <List.Item key={scope}>
              <span className="exb-row">
                <code className="exb-value">{scope}</code>
                <CopyButton value={scope} label={t('setup.step3.scope', { scope })} />
              </span>
            </List.Item>
          ))}
        </List>
      )}
    </View>
  );
}

type EnvironmentVariable = { name: string; source: ReactNode; value?: string };

function EnvironmentTable({ issuer }: { issuer: string | undefined }) {
  const { t } = useTranslation('pages');
  const narrow = useMediaQuery('(max-width: 40rem)');
  const variables: EnvironmentVariable[] = [
    {
      name: 'LTI_ISSUER',
      value: issuer ?? HOSTED_LMS_ISSUER,
      source: issuer !== undefined ? t('setup.step5.issuer') : t('setup.step5.issuerHosted'),
    },
    { name: 'LTI_CLIENT_ID', source: t('setup.step5.clientId') },
    { name: 'LTI_DEPLOYMENT_ID', source: t('setup.step5.deploymentId') },
    { name: 'LMS_OAUTH_CLIENT_ID', source: t('setup.step5.oauthClientId') },
    { name: 'LMS_OAUTH_CLIENT_SECRET', source: t('setup.step5.oauthClientSecret') },
  ];

  return (
    <Table caption={t('setup.step5.caption')} layout={narrow ? 'stacked' : 'auto'} margin="0 0 medium">
      <Table.Head>
        <Table.Row>
          <Table.ColHeader id="env-name">{t('setup.step5.variable')}</Table.ColHeader>
          <Table.ColHeader id="env-value">{t('setup.step5.value')}</Table.ColHeader>
        </Table.Row>
      </Table.Head>
      <Table.Body>
        {variables.map((variable) => (
          <Table.Row key={variable.name}>
            <Table.RowHeader>
              <span className={narrow ? 'exb-row exb-row--wrap' : 'exb-row exb-row--spread'}>
                <code className="exb-inline-code">{variable.name}</code>
                <CopyButton value={variable.name} label={t('setup.step5.variableName', { name: variable.name })} />
              </span>
            </Table.RowHeader>
            <Table.Cell>
              <Text as="div">{variable.source}</Text>
              {variable.value !== undefined && (
                <span className="exb-row exb-row--spaced">
                  <code className="exb-value">{variable.value}</code>
                  <CopyButton value={variable.value} label={t('setup.step5.variableValue', { name: variable.name })} />
                </span>
              )}
            </Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table>
  );
}

function environmentTemplate(issuer: string): string {
  return [
    `LTI_ISSUER=${issuer}`,
    'LTI_CLIENT_ID=',
    'LTI_DEPLOYMENT_ID=',
    'LMS_OAUTH_CLIENT_ID=',
    'LMS_OAUTH_CLIENT_SECRET=',
  ].join('\n');
}

export default defineView(schema, AdminSetup);
