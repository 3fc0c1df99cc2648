import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { defineView } from '../lib/define-view';
import { localPath, useReloadUrl } from '../lib/launch';
import { createApiClient, createQueryClient, TRPCProvider } from '../lib/trpc';
import { httpUrl, optional, z } from '../lib/zod';
import { createActionTokenStore } from './admin/action-token';
import { AdminApp } from './admin/AdminApp';
import { createAuthorizationStore } from '../lib/authorization-store';

const schema = z.object({
  accountId: z.string().min(1),
  accountName: optional(z.string().min(1)),
  userName: optional(z.string().min(1)),
  lmsUserId: z.string().min(1),
  lmsReturnUrl: optional(httpUrl),
  /** Starts the administrator authorization the dashboard needs. */
  authorizeUrl: localPath,
  reloadUrl: optional(localPath),
  /** Every administrator mutation carries it (`x-exb-action-token`); renewed while the page is open. */
  actionToken: optional(z.string().min(1)),
});

type Data = z.output<typeof schema>;

/**
 * The root-account administrator's dashboard. The API client, its cache and the action token belong to this view (and
 * its chunk).
 */
function Admin({ data }: { data: Data }) {
  const { t } = useTranslation('admin');
  useReloadUrl(data.reloadUrl);
  const [authorization] = useState(createAuthorizationStore);
  const [queryClient] = useState(() => createQueryClient({ onError: authorization.report }));
  const [actionToken] = useState(() => createActionTokenStore(data.actionToken));
  const [apiClient] = useState(() => createApiClient({ headers: actionToken.headers, before: [actionToken.retryLink()] }));
  useEffect(() => {
    actionToken.start();
    return () => actionToken.stop();
  }, [actionToken]);

  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={apiClient} queryClient={queryClient}>
        <AdminApp
          accountName={data.accountName ?? t('app.accountFallback', { id: data.accountId })}
          userName={data.userName}
          lmsReturnUrl={data.lmsReturnUrl}
          authorizeUrl={data.authorizeUrl}
          authorization={authorization}
        />
      </TRPCProvider>
    </QueryClientProvider>
  );
}

export default defineView(schema, Admin);
