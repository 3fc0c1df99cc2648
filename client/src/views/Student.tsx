import { Heading, Link, List, Text, View } from '@instructure/ui';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../components/Announcer';
import { Page } from '../components/Page';
import { defineView } from '../lib/define-view';
import { localPath, useReloadUrl } from '../lib/launch';
import { httpUrl, optional, z } from '../lib/zod';
import { DownloadControl } from './student/DownloadControl';
import { ExemptionPanel } from './student/ExemptionPanel';
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
  /** Set when the LMS has not proven the course for this launch yet: nothing of it is listed. */
  courseUnverified: optional(z.literal(true)),
  /** Whether the student asked not to see the session-readiness prompt again. */
  sessionReadiness: optional(z.object({ dismissed: z.boolean() })),
  /** Exemptions from the exam browser the student's teacher granted lately: waiting, used or lapsed. Never a code. */
  exemptions: optional(
    z.array(
      z.object({
        contentId: z.string().min(1),
        title: z.string(),
        expiresAt: z.iso.datetime(),
        usedAt: z.iso.datetime().nullable(),
        releaseUrl: localPath,
      }),
    ),
  ),
});

type Data = z.output<typeof schema>;

/** The student's course shell: the quizzes that need the exam browser, their downloads, and how to get ready. */
function Student({ data }: { data: Data }) {
  const { t } = useTranslation('student');
  useReloadUrl(data.reloadUrl);
  const course = data.courseName ?? t('page.courseFallback', { id: data.courseId });
  const { state, download } = useConfigDownload(data.actionToken, 'student-list');
  const [promptDismissed, setPromptDismissed] = useState(data.sessionReadiness?.dismissed ?? false);
  const [announcement, announce] = useAnnouncer();

  const continueDownload = useCallback(() => {
    if (state.phase === 'authorization-required') void download(state.target);
  }, [state, download]);
  const dismissed = useCallback(() => {
    setPromptDismissed(true);
    announce(t('page.promptDismissed'));
  }, [announce, t]);

  const authorizeUrl = state.phase === 'authorization-required' ? (state.authorizeUrl ?? data.authorizeUrl) : data.authorizeUrl;

  return (
    <Page title={course}>
      {announcement}
      <Text as="p">
        {data.userName ? `${t('page.welcome', { name: data.userName })} ` : ''}
        {t('page.intro')}
      </Text>

      {data.exemptions?.map((offer) => <ExemptionPanel key={offer.contentId} offer={offer} untitled={t('list.untitled')} />)}

      <View as="section" display="block" margin="medium 0" aria-labelledby="required-heading">
        <Heading level="h2" id="required-heading" margin="0 0 small">
          {t('page.requiredHeading')}
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
        <StatusMessage variant="error">{t('page.signInUnavailable')}</StatusMessage>
      )}

      <View as="section" display="block" margin="medium 0" aria-labelledby="next-step-heading">
        <Heading level="h2" id="next-step-heading" margin="0 0 small">
          {t('page.beforeHeading')}
        </Heading>
        <List margin="0 0 small">
          <List.Item>{t('page.beforeInstall')}</List.Item>
          <List.Item>{t('page.beforeCheck')}</List.Item>
          {data.authorizeUrl !== undefined && <List.Item>{t('page.beforeConnect')}</List.Item>}
          <List.Item>{t('page.beforeDownload')}</List.Item>
        </List>
        {data.setupCheckUrl !== undefined && (
          <Link href={data.setupCheckUrl} variant="standalone">
            {t('page.runSetupCheck')}
          </Link>
        )}
      </View>
      {data.lmsReturnUrl !== undefined && (
        <Link href={data.lmsReturnUrl} target="_top">
          {t('page.backToCourse')}
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
  const { t } = useTranslation('student');
  if (data.courseUnverified) return <StatusMessage variant="warning">{t('list.courseUnverified')}</StatusMessage>;
  if (data.assessments === undefined) return <StatusMessage variant="warning">{t('list.unavailable')}</StatusMessage>;
  if (data.assessments.length === 0) return <Text as="p">{t('list.empty')}</Text>;
  if (data.actionToken === undefined) return <StatusMessage variant="warning">{t('list.noDownloads')}</StatusMessage>;
  return (
    <ul aria-labelledby="required-heading" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {data.assessments.map((assessment) => {
        const title = assessment.title.trim() === '' ? t('list.untitled') : assessment.title;
        return (
          <li key={assessment.contentId} data-content-id={assessment.contentId}>
            <View as="div" borderWidth="small" borderRadius="medium" padding="small medium" margin="0 0 small">
              <Heading level="h3" margin="0 0 xx-small">
                {title}
              </Heading>
              <Text as="p" size="small" color="secondary">
                {t(`list.kind.${assessment.kind}`)}
              </Text>
              <Text as="p">{t('list.instruction')}</Text>
              <View as="div" margin="x-small 0 0">
                <DownloadControl
                  target={{ contentId: assessment.contentId, title, configGrantUrl: assessment.configGrantUrl }}
                  state={state}
                  onDownload={onDownload}
                  label={t('list.download')}
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
