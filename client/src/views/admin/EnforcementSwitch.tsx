import { Checkbox, Flex, ScreenReaderContent, Spinner } from '@instructure/ui';
import { useMutation, useMutationState, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { AdminAssessment } from './model';

/** Requires the exam browser for one assessment: the LMS changes first, the switch follows. */
export function EnforcementSwitch({ courseId, assessment }: { courseId: string; assessment: AdminAssessment }) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [announcement, announce] = useAnnouncer();
  /** What to do after a refusal, where the server's message alone does not say it. */
  const refusalText = (refusal: { errorCode?: string | undefined; message: string }) =>
    refusal.errorCode === ErrorCodes.EXB_QUIT_PASSWORD_REQUIRED ? t('enforcement.exitPasswordFirst') : refusal.message;
  // The outcome lives in the mutation cache, so a refusal stays visible when the table is drawn anew.
  const mutationKey = ['admin-enforcement', courseId, assessment.id];
  const mutation = useMutation({
    ...trpc.admin.assessments.setRequired.mutationOptions({
      onSuccess: (_result, input) => {
        announce(input.required ? t('enforcement.required', { title: assessment.title }) : t('enforcement.notRequired', { title: assessment.title }));
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
      onError: (error) => announce(t('enforcement.refused', { title: assessment.title, reason: refusalText(readServerError(error)) }), 'assertive'),
    }),
    mutationKey,
  });
  const outcomes = useMutationState({ filters: { mutationKey, exact: true }, select: (entry) => entry.state });
  const last = outcomes[outcomes.length - 1];
  const failure = last?.status === 'error' ? readServerError(last.error) : null;
  const checked = mutation.isPending && mutation.variables ? mutation.variables.required : assessment.exbRequired;

  return (
    <>
      {announcement}
      <Flex gap="x-small" alignItems="center">
        <Checkbox
          variant="toggle"
          size="small"
          label={<ScreenReaderContent>{t('enforcement.label', { title: assessment.title })}</ScreenReaderContent>}
          checked={checked}
          aria-busy={mutation.isPending}
          onChange={(event) => {
            if (!mutation.isPending) mutation.mutate({ courseId, assessmentId: assessment.id, required: event.target.checked });
          }}
          messages={failure !== null ? [{ type: 'newError', text: refusalText(failure) }] : undefined}
        />
        {mutation.isPending && <Spinner renderTitle={checked ? t('enforcement.requiring') : t('enforcement.removing')} size="x-small" />}
      </Flex>
    </>
  );
}
