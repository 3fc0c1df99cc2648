import { Heading, Text, View } from '@instructure/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { examDayCsvPath } from '@exb/shared/exam-day-live.js';
import { AssessmentBoardTabs, boardIdOf, type BoardAssessment } from '../../components/exam-day/AssessmentBoardTabs';
import { LiveExamDayBoard } from '../../components/exam-day/LiveExamDayBoard';
import { StudentRowActions } from '../../components/exam-day/StudentRowActions';
import { useTRPC, useTRPCClient } from '../../lib/trpc';

export interface CourseExamDayProps {
  courseId: string;
  /** The course's assessments that require the exam browser. */
  assessments: readonly BoardAssessment[];
  /** The assessment to show first (opened from the running exams). */
  initial?: string | undefined;
}

/** The administrator's exam day of one connected course: the teacher's boards, live, with the help for one student. */
export function CourseExamDay({ courseId, assessments, initial }: CourseExamDayProps) {
  const { t } = useTranslation('examDay');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const client = useTRPCClient();
  if (assessments.length === 0) return null;
  return (
    <View as="section" display="block" aria-labelledby="course-exam-day-heading" margin="medium 0" data-testid="course-exam-day">
      <Heading level="h3" id="course-exam-day-heading">
        {t('heading')}
      </Heading>
      <Text as="p">{t('intro')}</Text>
      <AssessmentBoardTabs
        assessments={assessments}
        initial={initial}
        renderBoard={(assessment) => {
          const input = { courseId, assessmentId: assessment.id };
          const refetch = () => void queryClient.invalidateQueries({ queryKey: trpc.admin.courses.examDayBoard.queryKey(input) });
          return (
            <LiveExamDayBoard
              queryOptions={trpc.admin.courses.examDayBoard.queryOptions(input)}
              subscribe={(handlers) => client.admin.courses.examDayChanges.subscribe(input, handlers)}
              idPrefix={`admin-${boardIdOf(assessment.id)}`}
              title={assessment.title}
              csvPath={examDayCsvPath('admin', courseId, assessment.id)}
              renderActions={(student) => <StudentRowActions scope={{ kind: 'admin', courseId }} assessment={assessment} student={student} onDone={refetch} />}
            />
          );
        }}
      />
    </View>
  );
}
