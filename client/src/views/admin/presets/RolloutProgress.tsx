import { Button, Flex, Heading, List, ProgressBar, Text, View } from '@instructure/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { useAnnouncer } from '../../../components/Announcer';
import { StatusAlert } from '../../../components/StatusAlert';
import { readServerError, useTRPC, useTRPCClient } from '../../../lib/trpc';
import { failureReason, type Rollout } from './model';

/** A run of passes: how many courses it set out to update, and where it stands. */
export interface RolloutRun {
  readonly presetId: string;
  readonly total: number;
  readonly rollout: Rollout;
  /** Passes also take failed courses (a retry). */
  readonly retryFailed: boolean;
  /**
   * The preset's `updatedAt` when the run started. An edit sends every course back to pending, so a run of an earlier
   * definition no longer tells where the courses stand.
   */
  readonly revision: string;
}

const BUSY_RETRY_MS = 1_000;

/**
 * Drives reconcile passes, one after another, until nothing is pending, with a progress bar of the courses updated so
 * far; then lists the courses that failed, with a retry. Each pass is one short request, so the page stays responsive
 * and the administrator can leave at any time (the summary's background passes carry on).
 */
export function RolloutProgress({ run, onRetry }: { run: RolloutRun; onRetry: (failedCount: number) => void }) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [announcement, announce] = useAnnouncer();
  const [rollout, setRollout] = useState(run.rollout);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const first = useRef(true);

  useEffect(() => {
    let stopped = false;
    setRollout(run.rollout);
    const drive = async () => {
      let current = run.rollout;
      let retryFailed = run.retryFailed;
      // A retry starts with the failed courses themselves; a rollout's first batch was already run by the request.
      while (!stopped && (current.pending > 0 || retryFailed)) {
        try {
          const answer = await client.admin.toolPresets.reconcile.mutate({ presetId: run.presetId, retryFailed });
          retryFailed = false;
          current = answer.rollout;
          if (!stopped) setRollout((previous) => ({ ...answer.rollout, applied: previous.applied + answer.rollout.applied, failed: previous.failed + answer.rollout.failed }));
        } catch (error) {
          const refusal = readServerError(error);
          // Another pass of this preset is running (another tab, another administrator): wait a moment, then go on.
          if (refusal.errorCode === ErrorCodes.ADMIN_TOOL_PRESET_BUSY) {
            await new Promise((resolve) => window.setTimeout(resolve, BUSY_RETRY_MS));
            continue;
          }
          if (!stopped) setFailure(refusal.message);
          return;
        }
      }
      if (!stopped) {
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
        announce(t('presets.rollout.finishedAnnouncement'));
      }
    };
    setFailure(null);
    if (!first.current || run.rollout.pending > 0 || run.retryFailed) void drive();
    else void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
    first.current = false;
    return () => {
      stopped = true;
    };
  }, [run, attempt, client, queryClient, trpc, announce, t]);

  const done = rollout.pending === 0 && failure === null;
  const updated = Math.max(0, Math.min(run.total, run.total - rollout.pending));
  const failures = useQuery({ ...trpc.admin.toolPresets.failures.queryOptions({ presetId: run.presetId }), enabled: done });

  return (
    <View as="section" display="block" margin="small 0 0" aria-labelledby="rollout-heading">
      {announcement}
      <Heading level="h4" id="rollout-heading" margin="0 0 x-small">
        {done ? t('presets.rollout.finished') : t('presets.rollout.running')}
      </Heading>
      <ProgressBar
        screenReaderLabel={t('presets.rollout.bar')}
        valueNow={updated}
        valueMax={Math.max(run.total, 1)}
        formatScreenReaderValue={({ valueNow, valueMax }) => t('presets.rollout.barValue', { count: valueMax, done: valueNow })}
        renderValue={() => (
          <Text size="small">{t('presets.rollout.ofTotal', { done: updated, total: run.total })}</Text>
        )}
        meterColor={done ? (rollout.failed > 0 ? 'warning' : 'success') : 'info'}
      />
      <Text as="p" size="small">
        {done
          ? rollout.failed > 0
            ? t('presets.rollout.someFailed', { count: run.total, updated: Math.max(0, run.total - rollout.failed), failed: rollout.failed })
            : t('presets.rollout.allUpdated', { count: run.total })
          : t('presets.rollout.stillPending', { count: rollout.pending })}
      </Text>
      {failure !== null && (
        <StatusAlert margin="small 0 0">
          <Flex gap="small" alignItems="center" wrap="wrap">
            <Flex.Item shouldGrow>{t('presets.rollout.stopped', { reason: failure })}</Flex.Item>
            <Button size="small" onClick={() => setAttempt((value) => value + 1)}>
              {t('presets.rollout.continue')}
            </Button>
          </Flex>
        </StatusAlert>
      )}
      {done && failures.data !== undefined && failures.data.courses.length > 0 && (
        <View as="div" margin="small 0 0" padding="small" borderWidth="small" borderRadius="medium">
          <Heading level="h5" margin="0 0 x-small">
            {t('presets.rollout.failedHeading', { count: failures.data.courses.length })}
          </Heading>
          <List margin="0 0 small">
            {failures.data.courses.map((course) => (
              <List.Item key={course.courseId}>
                {t('presets.rollout.failedCourse', { name: course.name, code: course.courseCode || course.courseId, reason: failureReason(course.errorCode) })}
              </List.Item>
            ))}
          </List>
          <Button color="primary" onClick={() => onRetry(failures.data.courses.length)}>
            {t('presets.rollout.retry')}
          </Button>
        </View>
      )}
    </View>
  );
}
