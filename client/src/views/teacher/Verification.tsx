import { Button, Flex, Pill, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useConnection } from './connection';
import type { Assessment, AssessmentSetting } from './model';

/** The last LMS check of an enforced assessment (`instructor.assessments.verification`). */
export interface VerificationRecord {
  status: 'verified' | 'missing' | 'stale' | 'unverified';
  checkedAt: string | null;
  reason: string | null;
}

export function useVerification() {
  const trpc = useTRPC();
  return useQuery(trpc.instructor.assessments.verification.queryOptions());
}

/** Invalidates what a refresh or a repair changes: the settings and their LMS checks. */
export function useVerificationRefetch() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: trpc.instructor.assessments.verification.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.instructor.assessments.settings.queryKey() });
  };
}

/** A missing or replaced code is a quiz any browser can open: never shown as protected. */
export function isUnprotected(record: VerificationRecord | undefined): boolean {
  return record?.status === 'missing' || record?.status === 'stale';
}

const BADGE: Record<Exclude<VerificationRecord['status'], 'verified'>, { label: string; color: 'danger' | 'warning'; line: string }> = {
  missing: { label: 'Not protected in the LMS', color: 'danger', line: 'The LMS has no access code on this quiz: students can open it in any browser.' },
  stale: { label: 'LMS code changed', color: 'danger', line: 'The LMS has another access code than the one exam browsers receive.' },
  unverified: { label: 'Not checked', color: 'warning', line: 'The tool has not confirmed that the LMS holds the access code.' },
};

/** The badge of an enforced assessment whose LMS code is not confirmed; nothing while it is. */
export function VerificationBadge({ record }: { record: VerificationRecord | undefined }) {
  if (record === undefined || record.status === 'verified') return null;
  const badge = BADGE[record.status];
  return <Pill color={badge.color}>{badge.label}</Pill>;
}

/**
 * The explanation of a code the LMS does not hold, and the one-click repairs: re-apply the stored code, or (a code
 * someone set in the LMS on purpose) accept the LMS's code.
 */
export function VerificationNotice({ assessment, setting, record }: { assessment: Assessment; setting: AssessmentSetting; record: VerificationRecord | undefined }) {
  const trpc = useTRPC();
  const connection = useConnection();
  const refetch = useVerificationRefetch();
  const [announcement, announce] = useAnnouncer();
  const options = {
    onSuccess: (result: { message: string }) => {
      announce(`${assessment.title}: ${result.message}`);
      refetch();
    },
    onError: (error: unknown) => announce(`${assessment.title}: ${readServerError(error).message}`, 'assertive'),
  };
  const reapply = useMutation(trpc.instructor.enforcement.reapplyProtection.mutationOptions(options));
  const accept = useMutation(trpc.instructor.enforcement.acceptLmsCode.mutationOptions(options));
  if (!setting.exbRequired || record === undefined || record.status === 'verified') return <>{announcement}</>;
  const badge = BADGE[record.status];
  const input = { courseId: assessment.courseId, quizId: assessment.id };
  const busy = reapply.isPending || accept.isPending;
  const failure = reapply.error ?? accept.error;
  const repairable = isUnprotected(record);
  return (
    <View as="div" margin="xx-small 0 0">
      {announcement}
      <Text as="p" size="small">
        {record.reason ?? badge.line}
      </Text>
      {repairable && (
        <Flex gap="x-small" wrap="wrap" margin="xx-small 0 0">
          <Button
            size="small"
            color="primary"
            interaction={connection.connected === false || busy ? 'disabled' : 'enabled'}
            onClick={() => reapply.mutate(input)}
          >
            Re-apply protection
          </Button>
          {record.status === 'stale' && (
            <Button size="small" interaction={connection.connected === false || busy ? 'disabled' : 'enabled'} onClick={() => accept.mutate(input)}>
              Accept the LMS’s code
            </Button>
          )}
        </Flex>
      )}
      {failure !== null && (
        <Text as="p" size="small" color="danger">
          {readServerError(failure).message}
        </Text>
      )}
    </View>
  );
}
