import { Alert, Heading, Link, List, Text, View } from '@instructure/ui';
import { useCallback, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation(['pages', 'common']);
  useReloadUrl(data.reloadUrl);
  const { actionToken } = data;
  const { state, download } = useConfigDownload(actionToken, 'assessment');
  const configGrantUrl = data.configGrantUrl ?? configGrantPath(data.courseId, data.contentId);
  const thisQuiz = t('requiredBrowser.thisQuiz');
  const target = useMemo(() => ({ contentId: data.contentId, title: thisQuiz, configGrantUrl }), [data.contentId, thisQuiz, configGrantUrl]);
  const continueDownload = useCallback(() => void download(target), [download, target]);

  return (
    <Page title={t('requiredBrowser.title')}>
      <Alert variant="info" variantScreenReaderLabel={t('common:variant.info')} hasShadow={false} margin="0 0 medium">
        <Text>{t('requiredBrowser.notice')}</Text>
      </Alert>
      <View as="section" display="block" margin="0 0 medium" aria-labelledby="next-step-heading">
        <Heading level="h2" id="next-step-heading" margin="0 0 small">
          {t('requiredBrowser.startHeading')}
        </Heading>
        <List margin="0 0 small">
          <List.Item>{t('requiredBrowser.stepInstalled')}</List.Item>
          <List.Item>{t('requiredBrowser.stepDownload')}</List.Item>
          <List.Item>{t(`requiredBrowser.stepAccessCode.${data.assessmentKind}`)}</List.Item>
        </List>
        {actionToken === undefined ? (
          <Text as="p" color="secondary">
            {t('requiredBrowser.downloadUnavailable')}
          </Text>
        ) : (
          <View as="div" margin="small 0">
            <DownloadControl target={target} state={state} onDownload={(next) => void download(next)} label={t('requiredBrowser.download')} />
          </View>
        )}
      </View>

      {state.phase === 'authorization-required' &&
        (state.authorizeUrl !== undefined ? (
          <SessionReadiness key={`download-${state.attempt}`} authorizeUrl={state.authorizeUrl} mode="download" onReady={continueDownload} />
        ) : (
          <StatusMessage variant="error">{t('requiredBrowser.signInUnavailable')}</StatusMessage>
        ))}

      <View as="section" display="block" margin="0 0 medium" aria-labelledby="check-heading">
        <Heading level="h2" id="check-heading" margin="0 0 small">
          {t('requiredBrowser.checkHeading')}
        </Heading>
        <Text as="p">{t('requiredBrowser.checkText')}</Text>
        {data.setupCheckUrl !== undefined && (
          <Link href={data.setupCheckUrl} variant="standalone">
            {t('requiredBrowser.checkLink')}
          </Link>
        )}
      </View>
      {data.lmsReturnUrl !== undefined && (
        // The course home after a launch, the quiz page when the LMS page sent the student here.
        <Link href={data.lmsReturnUrl} target="_top">
          {t('requiredBrowser.back')}
        </Link>
      )}
    </Page>
  );
}

export default defineView(schema, ExbRequired);
