import { useQueryClient } from '@tanstack/react-query';
import { UnmanagedCodeChoices } from '../../components/unmanaged-code/UnmanagedCodeChoices';
import { useTRPC } from '../../lib/trpc';
import { useConnection } from './connection';
import type { Assessment } from './model';
import { useVerificationRefetch } from './Verification';

/**
 * The choices for a quiz the LMS protects with a code this tool does not manage, in the teacher's quiz list: while the
 * view is connected to the LMS, and the originals come from the courses the teacher teaches.
 */
export function UnmanagedCodeNotice({ assessment }: { assessment: Assessment }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useConnection();
  const refetchVerification = useVerificationRefetch();
  return (
    <UnmanagedCodeChoices
      scope={{ kind: 'teacher', courseId: assessment.courseId }}
      assessment={assessment}
      withBadge
      disabled={connection.connected === false}
      onChanged={() => {
        void queryClient.invalidateQueries({ queryKey: trpc.instructor.assessments.list.queryKey() });
        refetchVerification();
      }}
    />
  );
}
