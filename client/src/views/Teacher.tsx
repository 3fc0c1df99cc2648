import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { defineView } from '../lib/define-view';
import { localPath, useReloadUrl } from '../lib/launch';
import { createApiClient, createQueryClient, TRPCProvider } from '../lib/trpc';
import { httpUrl, optional, z } from '../lib/zod';
import { createAuthorizationStore } from '../lib/authorization-store';
import { ConnectionProvider } from './teacher/connection';
import { TeacherApp } from './teacher/TeacherApp';

const schema = z.object({
  courseId: z.string().min(1),
  courseName: optional(z.string().min(1)),
  userName: optional(z.string().min(1)),
  lmsUserId: z.string().min(1),
  /** The staff role the person launched with; absent in sessions from before it was recorded. */
  courseRole: optional(z.enum(['teacher', 'teaching-assistant', 'designer'])),
  lmsReturnUrl: optional(httpUrl),
  /** Starts the LMS authorization the course management needs. */
  authorizeUrl: localPath,
  reloadUrl: optional(localPath),
});

type Data = z.output<typeof schema>;

/**
 * The instructor's course management. The API client and its cache belong to this view (and its chunk): views that
 * never call the API do not load either.
 */
function Teacher({ data }: { data: Data }) {
  const { t } = useTranslation('teacher');
  useReloadUrl(data.reloadUrl);
  const [authorization] = useState(createAuthorizationStore);
  const [queryClient] = useState(() => createQueryClient({ onError: authorization.report }));
  const [apiClient] = useState(createApiClient);
  const scope = { courseId: data.courseId, lmsUserId: data.lmsUserId, courseName: data.courseName ?? t('page.courseFallback', { id: data.courseId }) };

  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={apiClient} queryClient={queryClient}>
        <ConnectionProvider store={authorization} authorizeUrl={data.authorizeUrl}>
          <TeacherApp scope={scope} userName={data.userName} courseRole={data.courseRole} lmsReturnUrl={data.lmsReturnUrl} />
        </ConnectionProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}

export default defineView(schema, Teacher);
