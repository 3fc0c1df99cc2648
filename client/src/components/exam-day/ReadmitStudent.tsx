import { useTranslation } from 'react-i18next';
import { useTRPCClient } from '../../lib/trpc';
import { StudentActionDialog, type StudentActionScope } from './StudentActionDialog';

export interface ReadmitStudentProps {
  readonly scope: StudentActionScope;
  readonly assessmentId: string;
  readonly assessmentTitle: string;
  readonly lmsUserId: string;
  /** How the row names the student; their LMS user id when the LMS gave no name. */
  readonly studentName?: string | null | undefined;
  /** Runs after the re-admission, for instance to refresh a board. */
  readonly onReadmitted?: (() => void) | undefined;
}

/**
 * Exam day's "Re-admit" for one student, as a row action: after a crashed exam browser or a second device, voids the
 * student's outstanding configuration links and proofs so that they start again, with the required reason.
 */
export function ReadmitStudent({ scope, assessmentId, assessmentTitle, lmsUserId, studentName, onReadmitted }: ReadmitStudentProps) {
  const { t } = useTranslation('teacher');
  const client = useTRPCClient();
  return (
    <StudentActionDialog
      action="readmit"
      testId="readmit-student"
      lmsUserId={lmsUserId}
      studentName={studentName}
      explain={(name) => t('examDayHelp.readmit.explain', { name, assessment: assessmentTitle })}
      run={(id, reason) =>
        scope.kind === 'teacher'
          ? client.instructor.enforcement.readmitStudent.mutate({ courseId: scope.courseId, quizId: assessmentId, lmsUserId: id, reason })
          : client.admin.courses.readmitStudent.mutate({ courseId: scope.courseId, assessmentId, lmsUserId: id, reason })
      }
      done={(name) => t('examDayHelp.readmit.done', { name })}
      onDone={onReadmitted}
    />
  );
}
