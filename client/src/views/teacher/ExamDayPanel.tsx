import { Text } from '@instructure/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { examDayCsvPath } from '@exb/shared/exam-day-live.js';
import { EmptyState, QueryState } from '../../components/QueryState';
import { AssessmentBoardTabs, boardIdOf } from '../../components/exam-day/AssessmentBoardTabs';
import { LiveExamDayBoard } from '../../components/exam-day/LiveExamDayBoard';
import { StudentRowActions } from '../../components/exam-day/StudentRowActions';
import { useTRPC, useTRPCClient } from '../../lib/trpc';
import type { CourseScope } from './model';
import { useAssessments, useSettings } from './queries';

export interface ExamDayPanelProps {
  scope: CourseScope;
}

/**
 * The teacher's exam day: a tab per assessment that requires the exam browser, each with its live board, whose rows
 * offer the help for one student (re-admit, exempt).
 */
export function ExamDayPanel({ scope }: ExamDayPanelProps) {
  const { t } = useTranslation('examDay');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const client = useTRPCClient();
  const assessments = useAssessments();
  const settings = useSettings();
  return (
    <QueryState query={assessments} loading={t('loading')} failed={(reason) => t('loadFailed', { reason })}>
      {(list) => {
        const enforced = list.filter((assessment) => settings.data?.[assessment.id]?.enabled === true);
        if (enforced.length === 0) {
          return settings.isPending ? null : (
            <EmptyState>
              <Text>{t('noEnforced')}</Text>
            </EmptyState>
          );
        }
        return (
          <>
            <Text as="p">{t('intro')}</Text>
            <AssessmentBoardTabs
              assessments={enforced}
              renderBoard={(assessment) => {
                const input = { courseId: scope.courseId, quizId: assessment.id };
                const refetch = () => void queryClient.invalidateQueries({ queryKey: trpc.instructor.enforcement.examDayBoard.queryKey(input) });
                return (
                  <LiveExamDayBoard
                    queryOptions={trpc.instructor.enforcement.examDayBoard.queryOptions(input)}
                    subscribe={(handlers) => client.instructor.enforcement.examDayChanges.subscribe(input, handlers)}
                    idPrefix={boardIdOf(assessment.id)}
                    title={assessment.title}
                    csvPath={examDayCsvPath('instructor', scope.courseId, assessment.id)}
                    renderActions={(student) => (
                      <StudentRowActions scope={{ kind: 'teacher', courseId: scope.courseId }} assessment={assessment} student={student} onDone={refetch} />
                    )}
                  />
                );
              }}
            />
          </>
        );
      }}
    </QueryState>
  );
}
