import { Button, Heading, Pill, ScreenReaderContent, Text, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable, type TableColumn } from '../../components/DataTable';
import { AssessmentRepair } from './AssessmentRepair';
import { EnforcementSwitch } from './EnforcementSwitch';
import type { AdminAssessment, CourseDetail } from './model';
import { BadgeList } from '../../components/BadgeList';
import { AdminUnmanagedCode } from './UnmanagedCode';
import { AdminAssessmentUrlRuleReadings } from './UrlRuleReadings';

/** The badges of an assessment's state, in the words an administrator reads at a glance. */
function StatusBadges({ assessment }: { assessment: AdminAssessment }) {
  const { t } = useTranslation('admin');
  const { t: teacherText } = useTranslation('teacher');
  const status = assessment.verificationStatus;
  const badges: ReactNode[] = [];
  if (assessment.exbRequired && assessment.enabled && assessment.hasAccessCode) badges.push(<Pill key="on" color="success">{t('status.required')}</Pill>);
  else if (assessment.exbRequired && !assessment.hasAccessCode) badges.push(<Pill key="code" color="danger">{t('status.codeMissing')}</Pill>);
  else if (assessment.exbRequired !== assessment.enabled) badges.push(<Pill key="pending" color="warning">{t('status.pending')}</Pill>);
  // The teacher's words for a code the LMS does not hold, so both roles read the same problem the same way.
  if (status === 'missing' || status === 'stale') badges.push(<Pill key="verify" color="danger">{teacherText(`verification.badge.${status}`)}</Pill>);
  if (assessment.exbRequired && !assessment.hasQuitPassword) badges.push(<Pill key="exit" color="danger">{t('status.noExitPassword')}</Pill>);
  if (!assessment.usesCourseDefaults) badges.push(<Pill key="own" color="info">{t('status.ownSettings')}</Pill>);
  if (!assessment.discovered) badges.push(<Pill key="gone">{t('status.notInLms')}</Pill>);
  // A code the LMS carries that nobody here enforces (a course copy brings them along): the teacher's words again.
  if (assessment.unmanagedAccessCode) badges.push(<Pill key="unmanaged" color="warning">{teacherText('unmanagedCode.badge')}</Pill>);
  return <BadgeList badges={badges} emptyLabel={t('status.notRequired')} />;
}

/** The quiz's title, and whether students see it yet. */
function QuizTitle({ assessment }: { assessment: AdminAssessment }) {
  const { t } = useTranslation('admin');
  return (
    <>
      <Text weight="bold">{assessment.title}</Text>
      {!assessment.published && (
        <Text as="div" size="small" color="secondary">
          {t('quizzes.unpublished')}
        </Text>
      )}
    </>
  );
}

interface AssessmentTableProps {
  course: CourseDetail;
  onManage: (id: string) => void;
  registerActionButton: (id: string, element: HTMLElement | null) => void;
}

export function AssessmentTable({ course, onManage, registerActionButton }: AssessmentTableProps) {
  const { t } = useTranslation('admin');
  const columns: TableColumn<AdminAssessment>[] = [
    { id: 'quiz', header: t('quizzes.column.quiz'), rowHeader: true, render: (assessment) => <QuizTitle assessment={assessment} /> },
    { id: 'type', header: t('quizzes.column.type'), render: (assessment) => t(`contentType.${assessment.contentType}`) },
    { id: 'exb', header: t('quizzes.column.exb'), render: (assessment) => <EnforcementSwitch courseId={course.id} assessment={assessment} /> },
    {
      id: 'state',
      header: t('quizzes.column.status'),
      render: (assessment) => (
        <>
          <StatusBadges assessment={assessment} />
          <AssessmentRepair courseId={course.id} assessment={assessment} />
          <AdminUnmanagedCode courseId={course.id} assessment={assessment} />
          <AdminAssessmentUrlRuleReadings courseId={course.id} assessmentId={assessment.id} />
        </>
      ),
    },
    {
      id: 'actions',
      header: t('quizzes.column.actions'),
      headerHidden: true,
      textAlign: 'end',
      render: (assessment) => (
        <Button
          size="small"
          onClick={() => onManage(assessment.id)}
          elementRef={(element) => registerActionButton(assessment.id, element instanceof HTMLElement ? element : null)}
        >
          {t('quizzes.manage')}
          <ScreenReaderContent> {t('quizzes.manageOf', { title: assessment.title })}</ScreenReaderContent>
        </Button>
      ),
    },
  ];
  return (
    <View as="div">
      <Heading level="h3" margin="0 0 small">
        {t('quizzes.heading')}
      </Heading>
      <DataTable caption={t('quizzes.caption', { course: course.name })} columns={columns} rows={course.assessments} rowKey={(assessment) => assessment.id} hover />
    </View>
  );
}
