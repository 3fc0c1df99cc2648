import { Button, Flex, ScreenReaderContent, Spinner, Text, View } from '@instructure/ui';
import { useTranslation } from 'react-i18next';
import { StatusMessage } from './StatusMessage';
import { isFor, type DownloadState, type DownloadTarget } from './use-config-download';

export type DownloadControlProps = {
  target: DownloadTarget;
  state: DownloadState;
  onDownload: (target: DownloadTarget) => void;
  /** Visible label; the assessment's title is added for screen readers when several buttons share a page. */
  label: string;
  nameAssessment?: boolean;
  primary?: boolean;
};

/** The download button of one assessment with the outcome of its last attempt beneath it. */
export function DownloadControl({ target, state, onDownload, label, nameAssessment = false, primary = true }: DownloadControlProps) {
  const { t } = useTranslation('student');
  const mine = isFor(state, target.contentId);
  const pending = mine && (state.phase === 'requesting' || state.phase === 'opening');
  // Another assessment's download under way holds this one back too: only one handoff can take over the page.
  const anyPending = state.phase === 'requesting' || state.phase === 'opening';
  return (
    <View as="div" data-download-for={target.contentId}>
      <Flex gap="small" alignItems="center" wrap="wrap">
        <Button
          color={primary ? 'primary' : 'secondary'}
          // Read-only rather than disabled, so a focused button keeps its focus while the request runs.
          interaction={anyPending ? 'readonly' : 'enabled'}
          onClick={() => onDownload(target)}
        >
          {label}
          {nameAssessment && <ScreenReaderContent> {t('download.forAssessment', { title: target.title })}</ScreenReaderContent>}
        </Button>
        {pending && (
          <Flex gap="x-small" alignItems="center">
            <Spinner renderTitle={t('download.working')} size="x-small" />
            <Text size="small">{state.phase === 'opening' ? t('download.opening') : t('download.preparing')}</Text>
          </Flex>
        )}
      </Flex>
      {mine && state.phase === 'failed' && <StatusMessage variant="error">{state.message}</StatusMessage>}
    </View>
  );
}
