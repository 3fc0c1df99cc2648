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
import { useId, type ReactNode } from 'react';
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

function AdminSetup({ data }: { data: Data }) {
  return data.detailed === true ? <SetupGuide data={data} /> : <SetupSummary data={data} />;
}

function SetupSummary({ data }: { data: Data }) {
  return (
    <Page title="Set up exam browser enforcement">
      <Text as="p">
        An LMS administrator registers this service in the LMS with the addresses below. The step-by-step guide explains
        where each one goes.
      </Text>
      <View as="div" display="block" margin="0 0 large">
        <Link href={GUIDE_PATH} variant="standalone">
          Open the step-by-step setup guide
        </Link>
      </View>
      <View as="section" display="block" aria-labelledby="addresses-heading">
        <Heading level="h2" id="addresses-heading" margin="0 0 small">
          Service addresses
        </Heading>
        <CopyableValue label="Tool URL" value={data.toolUrl} description="The address of this service." />
        <CopyableValue
          label="Health check URL"
          value={data.healthUrl}
          description={
            <>
              Answers <code className="exb-inline-code">{'{"status":"UP"}'}</code> while the service is running.
            </>
          }
        />
        <CopyableValue
          label="LTI configuration URL"
          value={data.ltiConfigUrl}
          description="Paste into a new LTI developer key, method “Enter URL”."
        />
        <CopyableValue
          label="Public JWK URL"
          value={data.jwksUrl}
          description="The service's public signing keys, for an LTI key entered manually."
        />
        <CopyableValue
          label="Detector script URL"
          value={data.detectorUrl}
          description="The script the theme loader adds to quiz pages that require the exam browser."
        />
      </View>
    </Page>
  );
}

function SetupGuide({ data }: { data: Data }) {
  const loginUrl = data.ltiLoginUrl ?? serviceUrl(data.toolUrl, '/lti/login');
  const launchUrl = data.ltiLaunchUrl ?? serviceUrl(data.toolUrl, '/lti/launch');
  const redirectUri = data.oauthRedirectUri ?? serviceUrl(data.toolUrl, '/api/oauth2callback');
  const loaderUrl = data.themeLoaderUrl ?? serviceUrl(data.toolUrl, '/js/lms-exb-theme-loader.js');

  return (
    <Page title="Administrator setup guide">
      <Text as="p">
        Follow these five steps once, as an administrator of the LMS root account. Every value you paste has a Copy
        button.
      </Text>
      <Alert variant="info" variantScreenReaderLabel="Before you start," hasShadow={false} margin="0 0 small">
        You need permission to manage developer keys, apps and themes in the root account, and the account must allow
        custom JavaScript in themes (on hosted instances the LMS vendor turns this on).
      </Alert>
      <View as="div" display="block" margin="0 0 large">
        <Link href={SUMMARY_PATH}>Back to the list of service addresses</Link>
      </View>

      <Step number={1} title="Create the LTI developer key">
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            In the LMS, open <Ui>Admin</Ui>, choose the root account, then <Ui>Developer Keys</Ui>.
          </List.Item>
          <List.Item>
            Choose <Ui>+ Developer Key</Ui>, then <Ui>LTI Key</Ui>.
          </List.Item>
          <List.Item>
            Give the key a name, set <Ui>Method</Ui> to <Ui>Enter URL</Ui> and paste the configuration URL. Paste the
            launch URL into <Ui>Redirect URIs</Ui>.
            <View as="div" display="block" margin="small 0 0">
              <CopyableValue label="LTI configuration URL" value={data.ltiConfigUrl} />
              <CopyableValue label="Redirect URI (launch URL)" value={launchUrl} />
            </View>
            <ToggleDetails summary="Entering the values manually instead" size="small">
              <Text as="p">
                With <Ui>Method</Ui> set to <Ui>Manual Entry</Ui>, fill in these fields and choose{' '}
                <Ui>Public JWK URL</Ui> as the JWK method:
              </Text>
              <CopyableValue label="Target Link URI and Redirect URI" value={launchUrl} />
              <CopyableValue label="OpenID Connect Initiation URL" value={loginUrl} />
              <CopyableValue label="Public JWK URL" value={data.jwksUrl} />
            </ToggleDetails>
          </List.Item>
          <List.Item>
            Save the key and switch its state to <Ui>On</Ui>. The number shown in the <Ui>Details</Ui> column is the{' '}
            <strong>client ID</strong>; note it for steps 2 and 5.
          </List.Item>
        </List>
      </Step>

      <Step number={2} title="Install the app in the root account">
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            Open <Ui>Admin</Ui>, the root account, <Ui>Settings</Ui>, then the <Ui>Apps</Ui> tab and{' '}
            <Ui>View App Configurations</Ui>.
          </List.Item>
          <List.Item>
            Choose <Ui>+ App</Ui>, set <Ui>Configuration Type</Ui> to <Ui>By Client ID</Ui>, paste the client ID from
            step 1, then <Ui>Submit</Ui> and <Ui>Install</Ui>.
          </List.Item>
          <List.Item>
            Open the app&apos;s settings menu and choose <Ui>Deployment Id</Ui>. Note the <strong>deployment ID</strong>{' '}
            for step 5.
          </List.Item>
        </List>
      </Step>

      <Step number={3} title="Create the API developer key">
        <Text as="p">
          This second key lets the service call the LMS API on behalf of each instructor, student or administrator who
          authorizes it.
        </Text>
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            In <Ui>Developer Keys</Ui>, choose <Ui>+ Developer Key</Ui>, then <Ui>API Key</Ui>.
          </List.Item>
          <List.Item>
            Give the key a name and paste the redirect URI into <Ui>Redirect URIs</Ui>.
            <View as="div" display="block" margin="small 0 0">
              <CopyableValue label="OAuth redirect URI" value={redirectUri} />
            </View>
          </List.Item>
          <List.Item>
            Turn on <Ui>Enforce Scopes</Ui> and select every scope in both lists below. Instructors and students are
            asked for the application scopes; root-account administrators for both lists.
            <ScopeList
              title="Application scopes"
              description="Used for instructors and students."
              scopes={data.applicationScopes}
            />
            <ScopeList
              title="Administrator scopes"
              description="Added for root-account administrators."
              scopes={data.adminScopes}
            />
          </List.Item>
          <List.Item>
            Save the key and switch its state to <Ui>On</Ui>. Note its <strong>client ID</strong> (the number in the{' '}
            <Ui>Details</Ui> column) and choose <Ui>Show Key</Ui> to see its <strong>client secret</strong>, for step 5.
          </List.Item>
        </List>
      </Step>

      <Step number={4} title="Load the detector through the theme JavaScript">
        <Text as="p">
          The LMS runs the theme&apos;s JavaScript on its own pages. One added line loads the service&apos;s theme
          loader, which adds the detector only on quiz pages whose quiz requires the exam browser.
        </Text>
        <List as="ol" margin="0" itemSpacing="small">
          <List.Item>
            Open <Ui>Admin</Ui>, the root account, <Ui>Themes</Ui>, and open the active theme in the theme editor.
          </List.Item>
          <List.Item>
            On the <Ui>Upload</Ui> tab, add this line to the theme&apos;s JavaScript file, keeping any code it already
            has, and upload the file.
            <View as="div" display="block" margin="small 0 0">
              <CopyableValue label="Theme JavaScript line" value={themeLoaderSnippet(loaderUrl)} block />
              <CopyableValue label="Theme loader URL" value={loaderUrl} />
            </View>
          </List.Item>
          <List.Item>
            Save and apply the theme. Sub-account themes that upload their own JavaScript need the same line.
          </List.Item>
        </List>
      </Step>

      <Step number={5} title="Configure the service and check it">
        <Text as="p">
          Set these environment variables on the service and restart it. <code className="exb-inline-code">BASE_URL</code>{' '}
          and <code className="exb-inline-code">LMS_URL</code> must already point at this service and at your LMS.
        </Text>
        <EnvironmentTable issuer={data.ltiIssuer} />
        <CopyableValue
          label="Environment template"
          description="The same variables as lines to fill in."
          value={environmentTemplate(data.ltiIssuer ?? HOSTED_LMS_ISSUER)}
          block
        />
        <Text as="p">
          After the restart, the health check must answer <code className="exb-inline-code">{'{"status":"UP"}'}</code>.
        </Text>
        <CopyableValue label="Health check URL" value={data.healthUrl} />
        <Link href={data.healthUrl} target="_blank" rel="noopener" renderIcon={<IconExternalLinkLine />} iconPlacement="end">
          Open the health check
          <ScreenReaderContent> (opens in a new tab)</ScreenReaderContent>
        </Link>
        <Text as="p">
          Finally, open the tool from a course&apos;s navigation as an instructor and authorize it when asked.
        </Text>
      </Step>
    </Page>
  );
}

function Step({ number, title, children }: { number: number; title: string; children: ReactNode }) {
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
        Step {number}: {title}
      </Heading>
      {children}
    </View>
  );
}

/** Interface labels in the LMS, set apart so they can be found on screen. */
function Ui({ children }: { children: ReactNode }) {
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
          The service did not provide this list. Check its documentation for the scopes to select.
        </Alert>
      ) : (
        <List isUnstyled margin="x-small 0 0" itemSpacing="xx-small" aria-labelledby={headingId}>
          {scopes.map((scope) => (
            <List.Item key={scope}>
              <span className="exb-row">
                <code className="exb-value">{scope}</code>
                <CopyButton value={scope} label={`scope ${scope}`} />
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
  const narrow = useMediaQuery('(max-width: 40rem)');
  const variables: EnvironmentVariable[] = [
    {
      name: 'LTI_ISSUER',
      value: issuer ?? HOSTED_LMS_ISSUER,
      source:
        issuer !== undefined
          ? 'The LTI issuer of your LMS.'
          : 'The LTI issuer of your LMS: this value for hosted instances; a self-hosted LMS uses its configured issuer.',
    },
    { name: 'LTI_CLIENT_ID', source: 'Client ID of the LTI key (step 1).' },
    { name: 'LTI_DEPLOYMENT_ID', source: 'Deployment ID from step 2; separate several with commas.' },
    { name: 'LMS_OAUTH_CLIENT_ID', source: 'Client ID of the API key (step 3).' },
    { name: 'LMS_OAUTH_CLIENT_SECRET', source: 'Client secret of the API key (step 3). Keep it secret.' },
  ];

  return (
    <Table caption="Environment variables to set" layout={narrow ? 'stacked' : 'auto'} margin="0 0 medium">
      <Table.Head>
        <Table.Row>
          <Table.ColHeader id="env-name">Variable</Table.ColHeader>
          <Table.ColHeader id="env-value">What to set</Table.ColHeader>
        </Table.Row>
      </Table.Head>
      <Table.Body>
        {variables.map((variable) => (
          <Table.Row key={variable.name}>
            <Table.RowHeader>
              <span className={narrow ? 'exb-row exb-row--wrap' : 'exb-row exb-row--spread'}>
                <code className="exb-inline-code">{variable.name}</code>
                <CopyButton value={variable.name} label={`variable name ${variable.name}`} />
              </span>
            </Table.RowHeader>
            <Table.Cell>
              <Text as="div">{variable.source}</Text>
              {variable.value !== undefined && (
                <span className="exb-row exb-row--spaced">
                  <code className="exb-value">{variable.value}</code>
                  <CopyButton value={variable.value} label={`${variable.name} value`} />
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
