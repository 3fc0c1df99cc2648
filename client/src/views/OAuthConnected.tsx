import { Alert, Button, Link, Text, View } from '@instructure/ui';
import { oauthCompletionMessage, type OAuthCompletionView } from '@exb/shared/oauth-completion.js';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Page } from '../components/Page';
import { defineView } from '../lib/define-view';
import { localPath } from '../lib/launch';
import { httpUrl, optional, z } from '../lib/zod';

const schema = z.object({
  /** Instructor and administrator completions: the user's course or account in the LMS. */
  lmsReturnUrl: optional(httpUrl),
  /** Student completions: where the tool continues (the launch the student came from). */
  returnUrl: optional(localPath),
});

type Data = z.output<typeof schema>;

/** Long enough to read the confirmation (and for a screen reader to announce it), short enough not to linger. */
const CLOSE_DELAY_MS = 3_000;
/** A refused `window.close()` leaves the window open without an error; this long after it, the page says so. */
const CLOSE_CHECK_MS = 500;

/**
 * Tells the tool window that opened this popup that the authorization is done. The message goes to this origin only;
 * the opener checks origin and window before it refreshes. Without an opener there is nothing to tell.
 */
function useSignalOpener(view: OAuthCompletionView): boolean {
  const [signalled, setSignalled] = useState(false);
  useEffect(() => {
    const opener = window.opener as Window | null;
    if (!opener || opener.closed) return;
    try {
      opener.postMessage(oauthCompletionMessage(view), window.location.origin);
      setSignalled(true);
    } catch {
      // A cross-origin opener (the LMS page itself) cannot be messaged; the user returns manually.
    }
  }, [view]);
  return signalled;
}

type Closing = 'waiting' | 'closing' | 'refused';

/**
 * Once the tool window has been told, the popup has nothing left to do and closes itself after a moment. A browser may
 * refuse (a window the user opened by hand); then the page says plainly that it can be closed.
 */
function useCloseWhenDone(done: boolean): { closing: Closing; closeNow: () => void } {
  const [closing, setClosing] = useState<Closing>('waiting');
  const closeNow = useCallback(() => {
    window.close();
    window.setTimeout(() => {
      if (!window.closed) setClosing('refused');
    }, CLOSE_CHECK_MS);
  }, []);
  useEffect(() => {
    if (!done) return;
    setClosing('closing');
    const timer = window.setTimeout(closeNow, CLOSE_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [done, closeNow]);
  return { closing, closeNow };
}

/**
 * The completion page of the LMS authorization (`lms-oauth-connected`, `student-session-connected`). It carries no
 * privileges and never shows management: it confirms, signals the opener, closes itself and otherwise offers the way back.
 */
function OAuthConnected({ data, view }: { data: Data; view: string }) {
  const { t } = useTranslation(['pages', 'common']);
  const completion: OAuthCompletionView = view === 'student-session-connected' ? 'student-session-connected' : 'lms-oauth-connected';
  const signalled = useSignalOpener(completion);
  const { closing, closeNow } = useCloseWhenDone(signalled);
  return (
    <Page title={t('connected.title')}>
      <Alert variant="success" variantScreenReaderLabel={t('common:variant.success')} hasShadow={false} margin="0 0 medium">
        <Text>{t('connected.success')}</Text>
      </Alert>
      <View as="div" margin="0 0 medium" role="status">
        <Text as="p">
          {!signalled
            ? t('connected.closeWhenReady')
            : closing === 'refused'
              ? t('connected.toldCloseYourself')
              : t('connected.toldClosing')}
        </Text>
      </View>
      {signalled && closing === 'closing' && (
        <Button onClick={closeNow} margin="0 0 medium">
          {t('connected.close')}
        </Button>
      )}
      {completion === 'student-session-connected' && data.returnUrl !== undefined && !signalled && (
        <View as="div" margin="0 0 small">
          <Link href={data.returnUrl} variant="standalone">
            {t('connected.continue')}
          </Link>
        </View>
      )}
      {/* In a popup the tool window is still open behind it; a link back only helps a page opened on its own. */}
      {data.lmsReturnUrl !== undefined && !signalled && (
        <Link href={data.lmsReturnUrl} target="_top">
          {t('common:returnToLms')}
        </Link>
      )}
    </Page>
  );
}

export default defineView(schema, OAuthConnected);
