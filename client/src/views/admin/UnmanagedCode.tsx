import { useQueryClient } from '@tanstack/react-query';
import { UnmanagedCodeChoices } from '../../components/unmanaged-code/UnmanagedCodeChoices';
import { useTRPC } from '../../lib/trpc';
import type { AdminAssessment } from './model';

/**
 * The teacher's choices for a quiz whose LMS access code this service does not manage, in the administrator's quiz
 * list with the administrator's grant: the originals come from every connected course of the account.
 */
export function AdminUnmanagedCode({ courseId, assessment }: { courseId: string; assessment: AdminAssessment }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (
    <UnmanagedCodeChoices
      scope={{ kind: 'admin', courseId }}
      assessment={assessment}
      onChanged={() => void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() })}
    />
  );
}
