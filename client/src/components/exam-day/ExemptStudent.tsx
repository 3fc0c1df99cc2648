import { useTranslation } from 'react-i18next';
import { EXEMPTION_TTL_SECONDS, type ExemptionGranted } from '@exb/shared/exam-day-help.js';
import { formatTime } from '../../lib/audit-labels';
import { useTRPCClient } from '../../lib/trpc';
import { StudentActionDialog, type StudentActionScope } from './StudentActionDialog';

/**
 * Where the exemption is granted: the teacher's own course (instructor procedures) or a connected course of the
 * administrator's account (administrator procedures, whose client adds the page's action token to every mutation).
 */
export type ExemptionScope = StudentActionScope;

export interface ExemptStudentProps {
  readonly scope: ExemptionScope;
  readonly assessmentId: string;
  readonly assessmentTitle: string;
  /** The student's numeric LMS user id; `null` while none is entered (the button is then disabled). */
  readonly lmsUserId: string | null;
  /** How the row names the student; their LMS user id when the LMS gave no name. */
  readonly studentName?: string | null | undefined;
  /** Runs after a grant, for instance to refresh a board. */
  readonly onGranted?: ((granted: ExemptionGranted) => void) | undefined;
}

/**
 * Exam day's "Exempt from the exam browser" for one student, as a row action: a button that opens a dialog saying
 * what the exemption means and asking for the required reason, then grants it. The code is never shown here; the
 * student sees it once on their own page.
 */
export function ExemptStudent({ scope, assessmentId, assessmentTitle, lmsUserId, studentName, onGranted }: ExemptStudentProps) {
  const { t } = useTranslation('teacher');
  const client = useTRPCClient();
  return (
    <StudentActionDialog<ExemptionGranted>
      action="exempt"
      testId="exempt-student"
      lmsUserId={lmsUserId}
      studentName={studentName}
      explain={(name) => t('examDayHelp.exempt.explain', { name, assessment: assessmentTitle, minutes: EXEMPTION_TTL_SECONDS / 60 })}
      run={(id, reason) =>
        scope.kind === 'teacher'
          ? client.instructor.assessments.exemptStudent.mutate({ courseId: scope.courseId, quizId: assessmentId, lmsUserId: id, reason })
          : client.admin.courses.exemptStudent.mutate({ courseId: scope.courseId, assessmentId, lmsUserId: id, reason })
      }
      done={(name, granted) => t('examDayHelp.exempt.done', { name, time: formatTime(granted.expiresAt) })}
      onDone={onGranted}
    />
  );
}
