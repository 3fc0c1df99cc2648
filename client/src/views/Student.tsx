import { Heading, Link, List, Text, View } from '@instructure/ui';
import { useCallback, useState } from 'react';
import { useAnnouncer } from '../components/Announcer';
import { Page } from '../components/Page';
import { defineView } from '../lib/define-view';
import { localPath, useReloadUrl } from '../lib/launch';
import { httpUrl, optional, z } from '../lib/zod';
import { DownloadControl } from './student/DownloadControl';
import { SessionReadiness } from './student/SessionReadiness';
import { StatusMessage } from './student/StatusMessage';
import { useConfigDownload, type DownloadTarget } from './student/use-config-download';

const assessmentSchema = z.object({
  contentId: z.string().min(1),
  kind: z.enum(['classic', 'newquiz']),
  title: z.string(),
  /** The assessment's config-grant route. */
  configGrantUrl: localPath,
});

const schema = z.object({
  courseId: z.string().min(1),
  courseName: optional(z.string().min(1)),
  userName: optional(z.string().min(1)),
  lmsUserId: z.string().min(1),
  lmsReturnUrl: optional(httpUrl),
  setupCheckUrl: optional(localPath),
  reloadUrl: optional(localPath),
  /**
   * Present where the downloaded configuration signs the exam browser in to the LMS: the authorization start the
   * student connects their LMS account with.
   */
  authorizeUrl: optional(localPath),
  /** Authorizes the configuration downloads of this page. */
  actionToken: optional(z.string().min(1)),
  /** The course's assessments that require the exam browser; absent when they could not be listed. */
  assessments: optional(z.array(assessmentSchema)),
  /** Whether the student asked not to see the session-readiness prompt again. */
  sessionReadiness: optional(z.object({ dismissed: z.boolean() })),
});

type Data = z.output<typeof schema>;
type Assessment = z.output<typeof assessmentSchema>;

const KIND_LABEL: Record<Assessment['kind'], string> = { classic: 'Quiz', newquiz: 'Quiz (New Quizzes)' };

/** The next step for each listed quiz, in one line. */
const INSTRUCTION = 'Download when you are ready to begin: the file opens this quiz in the exam browser, once, within two minutes.';

function titleOf(assessment: Assessment): string {
  return assessment.title.trim() === '' ? 'Untitled quiz' : assessment.title;
}

/** The student's course shell: the quizzes that need the exam browser, their downloads, and how to get ready. */
function Student({ data }: { data: Data }) {
  useReloadUrl(data.reloadUrl);
  const course = data.courseName ?? `Course ${data.courseId}`;
  const { state, download } = useConfigDownload(data.actionToken, 'student-list');
  const [promptDismissed, setPromptDismissed] = useState(data.sessionReadiness?.dismissed ?? false);
  const [announcement, announce] = useAnnouncer();

  const continueDownload = useCallback(() => {
    if (state.phase === 'authorization-required') void download(state.target);
  }, [state, download]);
  const dismissed = useCallback(() => {
    setPromptDismissed(true);
    announce('The sign-in check will not be offered again. You can still connect when a download needs it.');
  }, [announce]);

  const authorizeUrl = state.phase === 'authorization-required' ? (state.authorizeUrl ?? data.authorizeUrl) : data.authorizeUrl;

  return (
    <Page title={course}>
      {announcement}
      <Text as="p">
        {data.userName ? `Welcome, ${data.userName}. ` : ''}Some quizzes in this course must be taken in the secure exam
        browser. Download a quiz’s one-time configuration here or from the quiz in the LMS; it starts the exam browser
        with the quiz.
      </Text>

      <View as="section" display="block" margin="medium 0" aria-labelledby="required-heading">
        <Heading level="h2" id="required-heading" margin="0 0 small">
          Quizzes that require the exam browser
        </Heading>
        <RequiredAssessments data={data} state={state} onDownload={(target) => void download(target)} />
      </View>

      {state.phase === 'authorization-required' && authorizeUrl !== undefined ? (
        <SessionReadiness
          key={`download-${state.attempt}`}
          authorizeUrl={authorizeUrl}
          mode="download"
          pendingTitle={state.target.title}
          onReady={continueDownload}
        />
      ) : (
        data.authorizeUrl !== undefined &&
        !promptDismissed && <SessionReadiness key="prompt" authorizeUrl={data.authorizeUrl} mode="prompt" onDismissed={dismissed} />
      )}
      {state.phase === 'authorization-required' && authorizeUrl === undefined && (
        <StatusMessage variant="error">
          The exam browser cannot be signed in to the LMS for you right now. Open the tool again from the LMS, then
          download the configuration again.
        </StatusMessage>
      )}

      <View as="section" display="block" margin="medium 0" aria-labelledby="next-step-heading">
        <Heading level="h2" id="next-step-heading" margin="0 0 small">
          Before your exam
        </Heading>
        <List margin="0 0 small">
          <List.Item>Install the secure exam browser on the computer you will use.</List.Item>
          <List.Item>Run the setup check once to make sure it works.</List.Item>
          {data.authorizeUrl !== undefined && (
            <List.Item>Connect your LMS account, so the exam browser can sign you in to the quiz.</List.Item>
          )}
          <List.Item>
            On exam day, download the configuration of the quiz, here or from the quiz in the LMS. It can be used once,
            within two minutes.
          </List.Item>
        </List>
        {data.setupCheckUrl !== undefined && (
          <Link href={data.setupCheckUrl} variant="standalone">
            Run the setup check
          </Link>
        )}
      </View>
      {data.lmsReturnUrl !== undefined && (
        <Link href={data.lmsReturnUrl} target="_top">
          Back to the course in the LMS
        </Link>
      )}
    </Page>
  );
}

function RequiredAssessments({
  data,
  state,
  onDownload,
}: {
  data: Data;
  state: ReturnType<typeof useConfigDownload>['state'];
  onDownload: (target: DownloadTarget) => void;
}) {
  if (data.assessments === undefined) {
    return (
      <StatusMessage variant="warning">
        The list of quizzes could not be loaded. Reload this page in a moment, or open the quiz from the course in the
        LMS: it leads you to the download.
      </StatusMessage>
    );
  }
  if (data.assessments.length === 0) {
    return <Text as="p">No quiz in this course requires the exam browser at the moment.</Text>;
  }
  if (data.actionToken === undefined) {
    return (
      <StatusMessage variant="warning">
        Downloads are not available from this page. Open the tool again from the course in the LMS.
      </StatusMessage>
    );
  }
  return (
    <ul aria-labelledby="required-heading" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {data.assessments.map((assessment) => {
        const title = titleOf(assessment);
        return (
          <li key={assessment.contentId} data-content-id={assessment.contentId}>
            <View as="div" borderWidth="small" borderRadius="medium" padding="small medium" margin="0 0 small">
              <Heading level="h3" margin="0 0 xx-small">
                {title}
              </Heading>
              <Text as="p" size="small" color="secondary">
                {KIND_LABEL[assessment.kind]}
              </Text>
              <Text as="p">
                {INSTRUCTION}
              </Text>
              <View as="div" margin="x-small 0 0">
                <DownloadControl
                  target={{ contentId: assessment.contentId, title, configGrantUrl: assessment.configGrantUrl }}
                  state={state}
                  onDownload={onDownload}
                  label="Download configuration"
                  nameAssessment
                />
              </View>
            </View>
          </li>
        );
      })}
    </ul>
  );
}

export default defineView(schema, Student);
