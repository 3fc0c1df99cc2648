import { Heading, Link, Text, View } from '@instructure/ui';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { EXAM_DAY_RUNNING_HOURS, STUCK_STATES, type RunningAssessment, type StudentState } from '@exb/shared/exam-day.js';
import { DataTable } from '../../components/DataTable';
import { QueryState } from '../../components/QueryState';
import { i18next } from '../../i18n/i18n';
import { useTRPC } from '../../lib/trpc';
import { relativeTime } from './model';

/** The running exams are read again this often while the dashboard is open (the boards themselves are live). */
const POLL_MS = 30_000;

/** The school-wide summary of the assessments running now, each opening its course's board. */
export function RunningExams({ onOpen }: { onOpen: (exam: RunningAssessment) => void }) {
  const { t } = useTranslation('examDay');
  const trpc = useTRPC();
  const running = useQuery({ ...trpc.admin.examDay.running.queryOptions(), refetchInterval: POLL_MS, refetchIntervalInBackground: false });
  const number = (value: number) => new Intl.NumberFormat(i18next.language).format(value);
  const count = (exam: RunningAssessment, states: readonly StudentState[]) =>
    number(states.reduce((sum, state) => sum + ((exam.counts as Record<StudentState, number>)[state] ?? 0), 0));
  return (
    <View as="section" display="block" aria-labelledby="running-exams-heading" margin="medium 0" data-testid="running-exams">
      <Heading level="h2" id="running-exams-heading" margin="0 0 x-small">
        {t('running.heading')}
      </Heading>
      <Text as="p" size="small" color="secondary">
        {t('running.intro', { hours: EXAM_DAY_RUNNING_HOURS })}
      </Text>
      <QueryState query={running} size="small" loading={t('running.loading')} failed={(reason) => t('running.loadFailed', { reason })}>
        {(exams) =>
          exams.length === 0 ? (
            <Text as="p">{t('running.none')}</Text>
          ) : (
            <DataTable
              caption={t('running.caption')}
              rows={exams}
              rowKey={(exam) => `${exam.courseId} ${exam.assessmentId}`}
              columns={[
                {
                  id: 'running-assessment',
                  header: t('running.assessment'),
                  rowHeader: true,
                  render: (exam) => (
                    <Link as="button" onClick={() => onOpen(exam)}>
                      {exam.title ?? exam.assessmentId}
                    </Link>
                  ),
                },
                { id: 'running-course', header: t('running.course'), render: (exam) => exam.courseName },
                { id: 'running-students', header: t('running.students'), textAlign: 'end', render: (exam) => number(exam.students) },
                { id: 'running-stuck', header: t('running.needsHelp'), textAlign: 'end', render: (exam) => count(exam, STUCK_STATES) },
                { id: 'running-progress', header: t('running.inProgress'), textAlign: 'end', render: (exam) => count(exam, ['in-progress']) },
                { id: 'running-submitted', header: t('running.submitted'), textAlign: 'end', render: (exam) => count(exam, ['submitted']) },
                { id: 'running-last', header: t('running.lastActivity'), render: (exam) => relativeTime(exam.lastActivityAt) },
              ]}
            />
          )
        }
      </QueryState>
    </View>
  );
}
