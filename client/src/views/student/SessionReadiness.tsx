import { Button, Flex, Heading, Spinner, Text, View } from '@instructure/ui';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthorizeButton } from '../../components/AuthorizeButton';
import { checkSessionReadiness, dismissSessionReadiness } from './api';
import { StatusMessage } from './StatusMessage';

export type SessionReadinessProps = {
  /** The authorization start, `/api/student-session-authorize`. */
  authorizeUrl: string;
  /**
   * `prompt`: the preparation offered before an exam, which the student may dismiss for good. `download`: a download
   * is waiting for it; the step takes focus and continues the download once the sign-in works.
   */
  mode: 'prompt' | 'download';
  /** The assessment whose download is waiting. */
  pendingTitle?: string;
  /** Called once the service confirmed it can sign the exam browser in. */
  onReady?: () => void;
  onDismissed?: () => void;
};

type Phase =
  | { phase: 'idle' }
  | { phase: 'checking' }
  | { phase: 'ready' }
  /** The sign-in works, but the LMS will show its terms of use first: the student accepts them before the download. */
  | { phase: 'terms-required' }
  | { phase: 'authorization-required' }
  | { phase: 'failed'; message: string };

/**
 * The session-readiness step. The configuration a student downloads signs the exam browser in to the LMS as them,
 * which needs the student's permission (an LMS authorization in a popup). The check asks the service to try that
 * sign-in now, so that problems show before the exam rather than in it.
 */
export function SessionReadiness({ authorizeUrl, mode, pendingTitle, onReady, onDismissed }: SessionReadinessProps) {
  const { t } = useTranslation('student');
  const headingId = useId();
  const heading = useRef<Element | null>(null);
  const [state, setState] = useState<Phase>(mode === 'download' ? { phase: 'authorization-required' } : { phase: 'idle' });
  const [dismissError, setDismissError] = useState(false);
  const [dismissing, setDismissing] = useState(false);

  useEffect(() => {
    if (mode !== 'download' || !(heading.current instanceof HTMLElement)) return;
    heading.current.focus();
  }, [mode]);

  const check = useCallback(async () => {
    setState({ phase: 'checking' });
    const outcome = await checkSessionReadiness();
    if (outcome.kind === 'failed') setState({ phase: 'failed', message: outcome.message });
    else if (outcome.kind === 'ready' && outcome.termsAcceptanceRequired) setState({ phase: 'terms-required' });
    else setState({ phase: outcome.kind });
    if (outcome.kind === 'ready' && !outcome.termsAcceptanceRequired) onReady?.();
  }, [onReady]);

  const dismiss = async () => {
    setDismissing(true);
    setDismissError(false);
    const saved = await dismissSessionReadiness();
    setDismissing(false);
    if (saved) onDismissed?.();
    else setDismissError(true);
  };

  const dismissButton = (
    <Button
      withBackground={false}
      color="primary"
      margin="small 0 0"
      interaction={dismissing ? 'disabled' : 'enabled'}
      onClick={() => void dismiss()}
    >
      {t('readiness.dismiss')}
    </Button>
  );

  return (
    <View as="section" display="block" margin="medium 0" aria-labelledby={headingId} data-readiness-phase={state.phase}>
      <Heading
        level="h2"
        id={headingId}
        margin="0 0 small"
        elementRef={(element) => {
          heading.current = element;
          // Focus target for the download that needs this step; not a stop of the tab order.
          element?.setAttribute('tabindex', '-1');
        }}
      >
        {t('readiness.heading')}
      </Heading>
      <Text as="p">{t('readiness.explanation')}</Text>
      {mode === 'download' && state.phase !== 'ready' && (
        <StatusMessage variant="warning">
          {pendingTitle === undefined ? t('readiness.waiting') : t('readiness.waitingFor', { title: pendingTitle })}
        </StatusMessage>
      )}

      {state.phase === 'idle' && (
        <Button color="primary" onClick={() => void check()} margin="small small 0 0">
          {t('readiness.check')}
        </Button>
      )}
      {state.phase === 'idle' && mode === 'prompt' && dismissButton}
      {state.phase === 'checking' && (
        <Flex gap="small" alignItems="center" margin="small 0">
          <Spinner renderTitle={t('readiness.checkingTitle')} size="x-small" />
          <Text>{t('readiness.checking')}</Text>
        </Flex>
      )}
      {state.phase === 'ready' && (
        <StatusMessage variant="success">
          {mode === 'download' ? t('readiness.readyDownload') : t('readiness.readyPrompt')}
        </StatusMessage>
      )}
      {state.phase === 'terms-required' && (
        <View as="div" margin="small 0 0">
          <StatusMessage variant="warning">{t('readiness.termsRequired')}</StatusMessage>
          <Button color="primary" onClick={() => void check()} margin="small small 0 0">
            {t('readiness.checkAgain')}
          </Button>
          {mode === 'download' && (
            <Button onClick={() => onReady?.()} margin="small 0 0">
              {t('readiness.downloadAnyway')}
            </Button>
          )}
        </View>
      )}
      {state.phase === 'authorization-required' && (
        <View as="div" margin="small 0 0">
          {mode === 'prompt' && (
            <Text as="p">{t('readiness.notConnected')}</Text>
          )}
          <AuthorizeButton startUrl={authorizeUrl} onCompleted={() => void check()}>
            {t('readiness.connect')}
          </AuthorizeButton>
        </View>
      )}
      {state.phase === 'failed' && (
        <>
          <StatusMessage variant="error">{state.message}</StatusMessage>
          <Button onClick={() => void check()}>{t('readiness.tryAgain')}</Button>
        </>
      )}

      {mode === 'prompt' && state.phase !== 'checking' && state.phase !== 'idle' && <View as="div" margin="small 0 0">{dismissButton}</View>}
      {dismissError && <StatusMessage variant="error">{t('readiness.dismissFailed')}</StatusMessage>}
    </View>
  );
}
