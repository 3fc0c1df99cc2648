import { Alert, Link, Text, View } from '@instructure/ui';
import { oauthCompletionMessage, type OAuthCompletionView } from '@exb/shared/oauth-completion.js';
import { useEffect, useState } from 'react';
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

/**
 * The completion page of the LMS authorization (`lms-oauth-connected`, `student-session-connected`). It carries no
 * privileges and never shows management: it confirms, signals the opener and offers the way back.
 */
function OAuthConnected({ data, view }: { data: Data; view: string }) {
  const completion: OAuthCompletionView = view === 'student-session-connected' ? 'student-session-connected' : 'lms-oauth-connected';
  const signalled = useSignalOpener(completion);
  return (
    <Page title="Connected to the LMS">
      <Alert variant="success" variantScreenReaderLabel="Success," hasShadow={false} margin="0 0 medium">
        <Text>The tool may now use the LMS on your behalf.</Text>
      </Alert>
      <View as="div" margin="0 0 medium">
        <Text as="p">
          {signalled
            ? 'The tool has been told and is reloading. You can close this window.'
            : 'Close this window and return to the tool in the LMS.'}
        </Text>
      </View>
      {completion === 'student-session-connected' && data.returnUrl !== undefined && !signalled && (
        <Link href={data.returnUrl} variant="standalone">
          Continue
        </Link>
      )}
      {data.lmsReturnUrl !== undefined && (
        <Link href={data.lmsReturnUrl} target="_top">
          Return to the LMS
        </Link>
      )}
    </Page>
  );
}

export default defineView(schema, OAuthConnected);
