import { Alert, Heading, Spinner, Text, View } from '@instructure/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { AuthorizeButton } from '../../components/AuthorizeButton';
import { FocusTarget } from '../../components/FocusTarget';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { AuthorizationStore } from '../teacher/connection';

/**
 * Shows the dashboard only to an administrator whose LMS grant works and confirms them (`admin.authorization.ensure`);
 * otherwise the step that gets there: authorize in a popup, authorize again after a refusal, or the reason the LMS
 * does not confirm them. Any later answer that says the LMS no longer accepts the grant brings the prompt back.
 */
export function AdminConnection({ store, authorizeUrl, children }: { store: AuthorizationStore; authorizeUrl: string; children: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const signal = useSyncExternalStore(store.subscribe, store.get);
  const check = useQuery({ ...trpc.admin.authorization.ensure.queryOptions(), staleTime: 60_000 });
  const heading = useRef<HTMLElement | null>(null);
  const expired = signal.reauthorizeUrl !== null;
  // An expired grant shows up in answer to something the administrator just did; the prompt is where to continue.
  useEffect(() => {
    if (expired) heading.current?.focus();
  }, [expired]);
  const onAuthorized = useCallback(() => {
    store.clear();
    void queryClient.invalidateQueries();
  }, [store, queryClient]);

  if (signal.sessionEnded) {
    return (
      <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
        Your session with the tool has ended. Open the tool again from the account navigation in the LMS to continue.
      </Alert>
    );
  }
  if (check.isPending) {
    return (
      <View as="div" textAlign="center" padding="large">
        <Spinner renderTitle="Checking your authorization in the LMS" size="small" />
      </View>
    );
  }
  if (check.isError) {
    const refusal = readServerError(check.error);
    return (
      <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
        {refusal.errorCode === ErrorCodes.ADMIN_NOT_CONFIRMED
          ? 'The LMS does not confirm you as an administrator of this root account. Open the tool from the root account’s navigation, or ask an administrator of the root account.'
          : `Your authorization could not be checked: ${refusal.message}`}
      </Alert>
    );
  }
  if (check.data.authorized && !expired) return <>{children}</>;
  const prompt = (
    <View as="section" display="block" padding="medium" background="secondary" borderWidth="small" borderRadius="medium" aria-labelledby="connect-heading">
      <FocusTarget focusRef={(element) => void (heading.current = element)}>
        <Heading level="h2" id="connect-heading" margin="0 0 x-small">
          {expired ? 'Authorize administrator access again' : 'Authorize administrator access'}
        </Heading>
      </FocusTarget>
      <Text as="p">
        {expired
          ? 'The LMS no longer accepts the tool’s authorization: it expired or was revoked. Authorize again to continue; nothing was changed.'
          : 'The dashboard reads courses and quizzes across the account, which needs your administrator authorization in the LMS. You grant it once; the LMS keeps checking your account permissions on every change.'}
      </Text>
      <AuthorizeButton startUrl={signal.reauthorizeUrl ?? authorizeUrl} onCompleted={onAuthorized}>
        Authorize administrator access in the LMS
      </AuthorizeButton>
    </View>
  );
  // An authorization that expired while working keeps the administrator's place below the prompt.
  return check.data.authorized ? (
    <>
      {prompt}
      <View as="div" margin="medium 0 0">
        {children}
      </View>
    </>
  ) : (
    prompt
  );
}
