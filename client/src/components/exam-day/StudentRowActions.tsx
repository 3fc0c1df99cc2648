import { Flex } from '@instructure/ui';
import type { BoardStudent } from '@exb/shared/exam-day.js';
import { ExemptStudent } from './ExemptStudent';
import { ReadmitStudent } from './ReadmitStudent';
import type { StudentActionScope } from './StudentActionDialog';

/** A board row's actions on its student: re-admit, and exempt from the exam browser; either refreshes the board. */
export function StudentRowActions({
  scope,
  assessment,
  student,
  onDone,
}: {
  scope: StudentActionScope;
  assessment: { readonly id: string; readonly title: string };
  student: BoardStudent;
  onDone: () => void;
}) {
  const common = { scope, assessmentId: assessment.id, assessmentTitle: assessment.title, lmsUserId: student.lmsUserId, studentName: student.name };
  return (
    <Flex gap="x-small" wrap="wrap" direction="column" alignItems="start">
      <ReadmitStudent {...common} onReadmitted={onDone} />
      <ExemptStudent {...common} onGranted={onDone} />
    </Flex>
  );
}
