import { List, Text, View } from '@instructure/ui';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { StatusAlert } from '../../components/StatusAlert';
import { readServerError, useTRPC } from '../../lib/trpc';
import { courseFailureReason } from './failure-reasons';
import type { ConnectOutcome } from './model';

/**
 * A connect request, from the catalog or from pasted ids: its answer per course, or (`failure`) the reason nothing was
 * connected. A new request clears what the last one said.
 */
export function useConnectCourses(onConnected: (outcome: ConnectOutcome) => void) {
  const trpc = useTRPC();
  const [outcome, setOutcome] = useState<ConnectOutcome | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const connect = useMutation(
    trpc.admin.courses.connect.mutationOptions({
      onMutate: () => {
        setFailure(null);
        setOutcome(null);
      },
      onSuccess: (result) => {
        setOutcome(result);
        onConnected(result);
      },
      onError: (error) => setFailure(readServerError(error).message),
    }),
  );
  return { connect, outcome, failure };
}

/** What became of each course of a connect request, and the entries that named no course. */
export function ConnectResults({ outcome, names }: { outcome: ConnectOutcome; names: ReadonlyMap<string, string> }) {
  const { t } = useTranslation('admin');
  const failed = outcome.results.filter((result) => !result.success);
  return (
    <View as="div" margin="small 0 0">
      <StatusAlert variant={failed.length === 0 ? 'success' : 'warning'} live="polite">
        {failed.length === 0
          ? t('connect.connected', { count: outcome.connectedCount })
          : t('connect.connectedSome', { count: outcome.results.length, connected: outcome.connectedCount })}
      </StatusAlert>
      <List margin="small 0 0" aria-label={t('connect.results')}>
        {outcome.results.map((result) => (
          <List.Item key={result.courseId}>
            {/* The course's name stands first in either language, in bold: a name is text, never markup. */}
            <Text>
              <Text weight="bold">{result.success ? result.course.name : (names.get(result.courseId) ?? t('courseFallback', { id: result.courseId }))}</Text>
              {result.success
                ? ` ${t('connect.resultConnected', { id: result.courseId })}`
                : t('connect.resultFailed', {
                    reason: courseFailureReason(result.error.error_code, t('connect.failedFallback')),
                    next: result.error.error_code === ErrorCodes.ADMIN_COURSE_NOT_IN_ACCOUNT ? t('connect.notInAccountHint') : t('connect.tryAgain'),
                  })}
            </Text>
          </List.Item>
        ))}
      </List>
      {outcome.unrecognized.length > 0 && (
        <Text as="p" color="secondary" size="small">
          {t('connect.unrecognized', { entries: outcome.unrecognized.join(', ') })}
        </Text>
      )}
    </View>
  );
}
