import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { ProtectionRepair } from '../../components/ProtectionRepair';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { AdminAssessment } from './model';

/**
 * An enforced assessment whose access code the LMS does not hold: the reason, and the teacher's two repairs through
 * the administrator's routes (`admin.assessments.reapplyProtection`, `acceptLmsCode`, behind the action token).
 * Stays mounted once repaired, so the outcome is still announced.
 */
export function AssessmentRepair({ courseId, assessment }: { courseId: string; assessment: AdminAssessment }) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [announcement, announce] = useAnnouncer();
  const done = (message: string) => {
    announce(t('action.titled', { title: assessment.title, message }));
    void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
  };
  const onError = (error: unknown) => announce(t('action.titled', { title: assessment.title, message: readServerError(error).message }), 'assertive');
  const reapply = useMutation(
    trpc.admin.assessments.reapplyProtection.mutationOptions({
      onSuccess: (result) => done(t(result.setting.verificationStatus === 'verified' ? 'verification.reapplied' : 'verification.reapplyUnconfirmed')),
      onError,
    }),
  );
  const accept = useMutation(trpc.admin.assessments.acceptLmsCode.mutationOptions({ onSuccess: () => done(t('verification.accepted')), onError }));
  const status = assessment.verificationStatus;
  if (!assessment.exbRequired || (status !== 'missing' && status !== 'stale')) return announcement;
  const input = { courseId, assessmentId: assessment.id };
  const failure = reapply.error ?? accept.error;
  return (
    <>
      {announcement}
      <ProtectionRepair
        status={status}
        reason={assessment.verificationReason}
        onReapply={() => reapply.mutate(input)}
        onAccept={() => accept.mutate(input)}
        disabled={reapply.isPending || accept.isPending}
        failure={failure === null ? null : readServerError(failure).message}
      />
    </>
  );
}
