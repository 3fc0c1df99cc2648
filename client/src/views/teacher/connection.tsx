import { Alert, Heading, Text, View } from '@instructure/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthorizeButton } from '../../components/AuthorizeButton';
import { FocusTarget } from '../../components/FocusTarget';
import type { AuthorizationStore } from '../../lib/authorization-store';
import { useTRPC } from '../../lib/trpc';

export interface Connection {
  /** `undefined` while the first check runs. */
  readonly connected: boolean | undefined;
  /** The grant existed but the LMS no longer accepts it. */
  readonly expired: boolean;
  readonly sessionEnded: boolean;
  /** The same-origin start of the authorization the prompt opens. */
  readonly startUrl: string;
  /** What follows the authorization popup's completion signal. */
  readonly onAuthorized: () => void;
}

const ConnectionContext = createContext<Connection | null>(null);

export function useConnection(): Connection {
  const connection = useContext(ConnectionContext);
  if (!connection) throw new Error('useConnection outside ConnectionProvider');
  return connection;
}

/**
 * Whether the teacher may use the LMS through the tool. The server refreshes an expired access token when the stored
 * refresh token still works (`instructor.authorization.ensure`), so the prompt appears only when there is no grant or
 * the LMS refused its refresh, and later when any answer says the LMS no longer accepts the grant.
 */
export function ConnectionProvider({
  store,
  authorizeUrl,
  children,
}: {
  store: AuthorizationStore;
  authorizeUrl: string;
  children: ReactNode;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const signal = useSyncExternalStore(store.subscribe, store.get);
  const check = useQuery({ ...trpc.instructor.authorization.ensure.queryOptions(), staleTime: 60_000 });

  const refused = check.data?.authorized === false ? (check.data.authUrl ?? null) : null;
  const reauthorizeUrl = signal.reauthorizeUrl ?? refused;
  const expired = reauthorizeUrl !== null;
  const connected = expired ? false : check.data?.authorized;
  const startUrl = reauthorizeUrl ?? authorizeUrl;

  const onAuthorized = useCallback(() => {
    store.clear();
    // The grant changes what every LMS-backed answer can be; asking again keeps the teacher's place, a reload would not.
    void queryClient.invalidateQueries();
  }, [store, queryClient]);

  const value = useMemo<Connection>(
    () => ({ connected, expired, sessionEnded: signal.sessionEnded, startUrl, onAuthorized }),
    [connected, expired, signal.sessionEnded, startUrl, onAuthorized],
  );
  return <ConnectionContext.Provider value={value}>{children}</ConnectionContext.Provider>;
}

/**
 * The step that unlocks everything that talks to the LMS. The authorization runs in a popup (the LMS's sign-in and
 * approval pages refuse to be framed); its completion page tells this window, which then asks the server again.
 */
export function ConnectPrompt({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation('teacher');
  const connection = useConnection();
  const headingId = compact ? undefined : 'connect-heading';
  const heading = useRef<HTMLElement | null>(null);
  // An expired grant shows up in answer to something the teacher just did, whose control is now unavailable; the
  // prompt is where to continue.
  useEffect(() => {
    if (connection.expired) heading.current?.focus();
  }, [connection.expired]);
  const text = connection.expired ? t('connection.textExpired') : t('connection.text');

  return (
    <View
      as="section"
      display="block"
      padding="medium"
      margin={compact ? '0 0 small' : '0 0 medium'}
      background="secondary"
      borderWidth="small"
      borderRadius="medium"
      aria-labelledby={headingId}
      aria-label={compact ? t('connection.heading') : undefined}
    >
      {!compact && (
        <FocusTarget focusRef={(element) => void (heading.current = element)}>
          <Heading level="h2" id={headingId} margin="0 0 x-small">
            {connection.expired ? t('connection.headingExpired') : t('connection.heading')}
          </Heading>
        </FocusTarget>
      )}
      <Text as="p">{text}</Text>
      <AuthorizeButton startUrl={connection.startUrl} onCompleted={connection.onAuthorized}>
        {t('connection.authorize')}
      </AuthorizeButton>
    </View>
  );
}

/** Shown instead of the management when the session cookie is gone (for example after it expired). */
export function SessionEnded() {
  const { t } = useTranslation(['teacher', 'common']);
  return (
    <Alert variant="error" variantScreenReaderLabel={t('common:variant.error')} hasShadow={false} margin="0 0 medium">
      <Text>{t('connection.sessionEnded')}</Text>
    </Alert>
  );
}
