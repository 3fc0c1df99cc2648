import { Button, Flex, Heading, Spinner, Text, View } from '@instructure/ui';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
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
  | { phase: 'authorization-required' }
  | { phase: 'failed'; message: string };

/**
 * The session-readiness step. The configuration a student downloads signs the exam browser in to the LMS as them,
 * which needs the student's permission (an LMS authorization in a popup). The check asks the service to try that
 * sign-in now, so that problems show before the exam rather than in it.
 */
export function SessionReadiness({ authorizeUrl, mode, pendingTitle, onReady, onDismissed }: SessionReadinessProps) {
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
    else setState({ phase: outcome.kind });
    if (outcome.kind === 'ready') onReady?.();
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
      Don’t show this again
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
        Let the exam browser sign you in
      </Heading>
      <Text as="p">
        The configuration you download signs the exam browser in to the LMS as you, so the quiz opens without a
        password prompt. For that, the tool needs your permission once; the LMS asks you to confirm it in a new window.
      </Text>
      {mode === 'download' && state.phase !== 'ready' && (
        <StatusMessage variant="warning">
          {pendingTitle === undefined
            ? 'Connect your LMS account, then the configuration download continues.'
            : `Connect your LMS account, then the download for “${pendingTitle}” continues.`}
        </StatusMessage>
      )}

      {state.phase === 'idle' && (
        <Button color="primary" onClick={() => void check()} margin="small small 0 0">
          Check the sign-in
        </Button>
      )}
      {state.phase === 'idle' && mode === 'prompt' && dismissButton}
      {state.phase === 'checking' && (
        <Flex gap="small" alignItems="center" margin="small 0">
          <Spinner renderTitle="Checking" size="x-small" />
          <Text>Checking with the LMS…</Text>
        </Flex>
      )}
      {state.phase === 'ready' && (
        <StatusMessage variant="success">
          {mode === 'download'
            ? 'The exam browser can sign you in to the LMS. Preparing the download…'
            : 'The exam browser can sign you in to the LMS. You are ready.'}
        </StatusMessage>
      )}
      {state.phase === 'authorization-required' && (
        <View as="div" margin="small 0 0">
          {mode === 'prompt' && (
            <Text as="p">Your LMS account is not connected to the tool yet, or the connection has expired.</Text>
          )}
          <AuthorizeButton startUrl={authorizeUrl} onCompleted={() => void check()}>
            Connect your LMS account
          </AuthorizeButton>
        </View>
      )}
      {state.phase === 'failed' && (
        <>
          <StatusMessage variant="error">{state.message}</StatusMessage>
          <Button onClick={() => void check()}>Try again</Button>
        </>
      )}

      {mode === 'prompt' && state.phase !== 'checking' && state.phase !== 'idle' && <View as="div" margin="small 0 0">{dismissButton}</View>}
      {dismissError && <StatusMessage variant="error">Your choice could not be saved. Try again.</StatusMessage>}
    </View>
  );
}
