import { Text } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { BoardStudent } from '@exb/shared/exam-day.js';
import { examDayCsvPath } from '@exb/shared/exam-day-live.js';
import { EmptyState, QueryState } from '../../components/QueryState';
import { AssessmentBoardTabs, boardIdOf } from '../../components/exam-day/AssessmentBoardTabs';
import { LiveExamDayBoard } from '../../components/exam-day/LiveExamDayBoard';
import { useTRPC, useTRPCClient } from '../../lib/trpc';
import type { CourseScope } from './model';
import { useAssessments, useSettings } from './queries';

export interface ExamDayPanelProps {
  scope: CourseScope;
  /** A cell of actions for one student of one assessment (re-admit, exempt). */
  renderActions?: ((assessmentId: string, student: BoardStudent) => ReactNode) | undefined;
}

/** The teacher's exam day: a tab per assessment that requires the exam browser, each with its live board. */
export function ExamDayPanel({ scope, renderActions }: ExamDayPanelProps) {
  const { t } = useTranslation('examDay');
  const trpc = useTRPC();
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
                return (
                  <LiveExamDayBoard
                    queryOptions={trpc.instructor.enforcement.examDayBoard.queryOptions(input)}
                    subscribe={(handlers) => client.instructor.enforcement.examDayChanges.subscribe(input, handlers)}
                    idPrefix={boardIdOf(assessment.id)}
                    title={assessment.title}
                    csvPath={examDayCsvPath('instructor', scope.courseId, assessment.id)}
                    renderActions={renderActions === undefined ? undefined : (student) => renderActions(assessment.id, student)}
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
