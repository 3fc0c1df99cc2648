import { Alert, Heading, Link, List, Text, View } from '@instructure/ui';
import { useCallback, useMemo } from 'react';
import { Page } from '../components/Page';
import { defineView } from '../lib/define-view';
import { localPath, useReloadUrl } from '../lib/launch';
import { httpUrl, optional, z } from '../lib/zod';
import { configGrantPath } from './student/api';
import { DownloadControl } from './student/DownloadControl';
import { SessionReadiness } from './student/SessionReadiness';
import { StatusMessage } from './student/StatusMessage';
import { useConfigDownload } from './student/use-config-download';

const schema = z.object({
  courseId: z.string().min(1),
  contentId: z.string().min(1),
  assessmentKind: z.enum(['classic', 'newquiz']),
  courseName: optional(z.string().min(1)),
  userName: optional(z.string().min(1)),
  lmsUserId: z.string().min(1),
  assessmentUrl: httpUrl,
  lmsReturnUrl: optional(httpUrl),
  setupCheckUrl: optional(localPath),
  reloadUrl: optional(localPath),
  /** Authorizes the configuration download; issued with the student flow. */
  actionToken: optional(z.string().min(1)),
  /** The assessment's config-grant route. */
  configGrantUrl: optional(localPath),
});

type Data = z.output<typeof schema>;

/** Shown when a quiz requires the exam browser and this browser is not it. */
function ExbRequired({ data }: { data: Data }) {
  useReloadUrl(data.reloadUrl);
  const { actionToken } = data;
  const { state, download } = useConfigDownload(actionToken, 'assessment');
  const configGrantUrl = data.configGrantUrl ?? configGrantPath(data.courseId, data.contentId);
  const target = useMemo(() => ({ contentId: data.contentId, title: 'this quiz', configGrantUrl }), [data.contentId, configGrantUrl]);
  const continueDownload = useCallback(() => void download(target), [download, target]);

  return (
    <Page title="This quiz requires the secure exam browser">
      <Alert variant="info" variantScreenReaderLabel="Information," hasShadow={false} margin="0 0 medium">
        <Text>
          Your instructor requires this quiz to be taken in the secure exam browser. It cannot be started in this
          browser.
        </Text>
      </Alert>
      <View as="section" display="block" margin="0 0 medium" aria-labelledby="next-step-heading">
        <Heading level="h2" id="next-step-heading" margin="0 0 small">
          Start the quiz in the exam browser
        </Heading>
        <List margin="0 0 small">
          <List.Item>Make sure the secure exam browser is installed on this computer.</List.Item>
          <List.Item>
            Download the one-time configuration for this quiz; it starts the exam browser with the quiz. It can be used
            once, within two minutes.
          </List.Item>
          <List.Item>The exam browser receives the quiz’s access code by itself; you do not need to type it.</List.Item>
        </List>
        {actionToken === undefined ? (
          <Text as="p" color="secondary">
            The configuration download is not available from this page. Open the quiz again from the LMS in a moment;
            if this message stays, ask your instructor.
          </Text>
        ) : (
          <View as="div" margin="small 0">
            <DownloadControl target={target} state={state} onDownload={(t) => void download(t)} label="Download the configuration" />
          </View>
        )}
      </View>

      {state.phase === 'authorization-required' &&
        (state.authorizeUrl !== undefined ? (
          <SessionReadiness key={`download-${state.attempt}`} authorizeUrl={state.authorizeUrl} mode="download" onReady={continueDownload} />
        ) : (
          <StatusMessage variant="error">
            The exam browser cannot be signed in to the LMS for you right now. Open the quiz again from the LMS, then
            download the configuration again.
          </StatusMessage>
        ))}

      <View as="section" display="block" margin="0 0 medium" aria-labelledby="check-heading">
        <Heading level="h2" id="check-heading" margin="0 0 small">
          Not sure the exam browser works?
        </Heading>
        <Text as="p">
          The setup check starts the exam browser with a test page and tells you whether it is ready. It does not start
          the quiz.
        </Text>
        {data.setupCheckUrl !== undefined && (
          <Link href={data.setupCheckUrl} variant="standalone">
            Check that the exam browser works
          </Link>
        )}
      </View>
      {data.lmsReturnUrl !== undefined && (
        // The course home after a launch, the quiz page when the LMS page sent the student here.
        <Link href={data.lmsReturnUrl} target="_top">
          Back to the LMS
        </Link>
      )}
    </Page>
  );
}

export default defineView(schema, ExbRequired);
