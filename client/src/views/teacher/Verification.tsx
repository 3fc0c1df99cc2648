import type { VerificationStatus } from '@exb/shared/verification-status.js';
import { Pill } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useConnection } from './connection';
import type { Assessment, AssessmentSetting } from './model';
import { ProtectionRepair } from '../../components/ProtectionRepair';

/** The last LMS check of an enforced assessment (`instructor.assessments.verification`). */
export interface VerificationRecord {
  status: VerificationStatus;
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

const BADGE_COLOR: Record<Exclude<VerificationRecord['status'], 'verified'>, 'danger' | 'warning'> = {
  missing: 'danger',
  stale: 'danger',
  unverified: 'warning',
};

/** The badge of an enforced assessment whose LMS code is not confirmed; nothing while it is. */
export function VerificationBadge({ record }: { record: VerificationRecord | undefined }) {
  const { t } = useTranslation('teacher');
  if (record === undefined || record.status === 'verified') return null;
  return <Pill color={BADGE_COLOR[record.status]}>{t(`verification.badge.${record.status}`)}</Pill>;
}

/**
 * The explanation of a code the LMS does not hold, and the one-click repairs: re-apply the stored code, or (a code
 * someone set in the LMS on purpose) accept the LMS's code.
 */
export function VerificationNotice({ assessment, setting, record }: { assessment: Assessment; setting: AssessmentSetting; record: VerificationRecord | undefined }) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const connection = useConnection();
  const refetch = useVerificationRefetch();
  const [announcement, announce] = useAnnouncer();
  const done = (message: string) => {
    announce(t('action.titled', { title: assessment.title, message }));
    refetch();
  };
  const onError = (error: unknown) => announce(t('action.titled', { title: assessment.title, message: readServerError(error).message }), 'assertive');
  const reapply = useMutation(
    trpc.instructor.enforcement.reapplyProtection.mutationOptions({
      onSuccess: (result) => done(t(result.setting.verificationStatus === 'verified' ? 'verification.reapplied' : 'verification.reapplyUnconfirmed')),
      onError,
    }),
  );
  const accept = useMutation(
    trpc.instructor.enforcement.acceptLmsCode.mutationOptions({ onSuccess: () => done(t('verification.accepted')), onError }),
  );
  if (!setting.exbRequired || record === undefined || record.status === 'verified') return <>{announcement}</>;
  const input = { courseId: assessment.courseId, quizId: assessment.id };
  const failure = reapply.error ?? accept.error;
  return (
    <>
      {announcement}
      <ProtectionRepair
        status={record.status}
        reason={record.reason}
        onReapply={() => reapply.mutate(input)}
        onAccept={() => accept.mutate(input)}
        disabled={connection.connected === false || reapply.isPending || accept.isPending}
        failure={failure === null ? null : readServerError(failure).message}
      />
    </>
  );
}
