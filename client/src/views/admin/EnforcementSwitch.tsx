import { Checkbox, Flex, ScreenReaderContent, Spinner } from '@instructure/ui';
import { useMutation, useMutationState, useQueryClient } from '@tanstack/react-query';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { AdminAssessment } from './model';

/** What to do after a refusal, where the server's message alone does not say it. */
function nextStep(errorCode: string | undefined, message: string): string {
  if (errorCode === ErrorCodes.EXB_QUIT_PASSWORD_REQUIRED) return 'An exit password is needed first: set a new course exit password above, then switch again.';
  return message;
}

/** Requires the exam browser for one assessment: the LMS changes first, the switch follows. */
export function EnforcementSwitch({ courseId, assessment }: { courseId: string; assessment: AdminAssessment }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [announcement, announce] = useAnnouncer();
  // The outcome lives in the mutation cache, so a refusal stays visible when the table is drawn anew.
  const mutationKey = ['admin-enforcement', courseId, assessment.id];
  const mutation = useMutation({
    ...trpc.admin.assessments.setRequired.mutationOptions({
      onSuccess: (_result, input) => {
        announce(`${assessment.title}: the exam browser is ${input.required ? 'now required' : 'no longer required'}.`);
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
      onError: (error) => announce(`${assessment.title}: ${readServerError(error).message}`, 'assertive'),
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
          label={<ScreenReaderContent>Require the exam browser for {assessment.title}</ScreenReaderContent>}
          checked={checked}
          aria-busy={mutation.isPending}
          onChange={(event) => {
            if (!mutation.isPending) mutation.mutate({ courseId, assessmentId: assessment.id, required: event.target.checked });
          }}
          messages={failure !== null ? [{ type: 'newError', text: nextStep(failure.errorCode, failure.message) }] : undefined}
        />
        {mutation.isPending && <Spinner renderTitle={checked ? 'Requiring the exam browser' : 'Removing the requirement'} size="x-small" />}
      </Flex>
    </>
  );
}
