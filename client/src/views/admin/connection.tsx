import { Heading, Spinner, Text, View } from '@instructure/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { AuthorizeButton } from '../../components/AuthorizeButton';
import { FocusTarget } from '../../components/FocusTarget';
import { StatusAlert } from '../../components/StatusAlert';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { AuthorizationStore } from '../../lib/authorization-store';

/**
 * Shows the dashboard only to an administrator whose LMS grant works and confirms them (`admin.authorization.ensure`);
 * otherwise the step that gets there: authorize in a popup, authorize again after a refusal, or the reason the LMS
 * does not confirm them. Any later answer that says the LMS no longer accepts the grant brings the prompt back.
 */
export function AdminConnection({ store, authorizeUrl, children }: { store: AuthorizationStore; authorizeUrl: string; children: ReactNode }) {
  const { t } = useTranslation('admin');
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

  if (signal.sessionEnded) return <StatusAlert>{t('connection.sessionEnded')}</StatusAlert>;
  if (check.isPending) {
    return (
      <View as="div" textAlign="center" padding="large">
        <Spinner renderTitle={t('connection.checking')} size="small" />
      </View>
    );
  }
  if (check.isError) {
    const refusal = readServerError(check.error);
    return (
      <StatusAlert>
        {refusal.errorCode === ErrorCodes.ADMIN_NOT_CONFIRMED ? t('connection.notConfirmed') : t('connection.checkFailed', { reason: refusal.message })}
      </StatusAlert>
    );
  }
  if (check.data.authorized && !expired) return <>{children}</>;
  const prompt = (
    <View as="section" display="block" padding="medium" background="secondary" borderWidth="small" borderRadius="medium" aria-labelledby="connect-heading">
      <FocusTarget focusRef={(element) => void (heading.current = element)}>
        <Heading level="h2" id="connect-heading" margin="0 0 x-small">
          {expired ? t('connection.authorizeAgainHeading') : t('connection.authorizeHeading')}
        </Heading>
      </FocusTarget>
      <Text as="p">{expired ? t('connection.expired') : t('connection.why')}</Text>
      <AuthorizeButton startUrl={signal.reauthorizeUrl ?? authorizeUrl} onCompleted={onAuthorized}>
        {t('connection.authorize')}
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
