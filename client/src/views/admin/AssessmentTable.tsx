import { Button, Flex, Heading, Pill, ScreenReaderContent, Table, Text, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useMediaQuery } from '../../lib/use-media-query';
import { EnforcementSwitch } from './EnforcementSwitch';
import { CONTENT_TYPE_LABEL, type AdminAssessment, type CourseDetail } from './model';

/** The badges of an assessment's state, in the words an administrator reads at a glance. */
function StatusBadges({ assessment }: { assessment: AdminAssessment }) {
  const badges: ReactNode[] = [];
  if (assessment.exbRequired && assessment.enabled && assessment.hasAccessCode) badges.push(<Pill key="on" color="success">Required</Pill>);
  else if (assessment.exbRequired && !assessment.hasAccessCode) badges.push(<Pill key="code" color="danger">Access code missing</Pill>);
  else if (assessment.exbRequired !== assessment.enabled) badges.push(<Pill key="pending" color="warning">Change pending</Pill>);
  if (assessment.verificationStatus === 'missing' || assessment.verificationStatus === 'stale') {
    badges.push(<Pill key="verify" color="danger">Check in the LMS</Pill>);
  }
  if (assessment.exbRequired && !assessment.hasQuitPassword) badges.push(<Pill key="exit" color="danger">No exit password</Pill>);
  if (!assessment.usesCourseDefaults) badges.push(<Pill key="own" color="info">Own settings</Pill>);
  if (!assessment.discovered) badges.push(<Pill key="gone">Not in the LMS</Pill>);
  if (badges.length === 0) {
    return (
      <Text size="small" color="secondary">
        Not required
      </Text>
    );
  }
  return (
    <Flex gap="xx-small" wrap="wrap">
      {badges}
    </Flex>
  );
}

export function AssessmentTable({
  course,
  onManage,
  registerActionButton,
}: {
  course: CourseDetail;
  onManage: (id: string) => void;
  registerActionButton: (id: string, element: HTMLElement | null) => void;
}) {
  const narrow = useMediaQuery('(max-width: 44rem)');
  return (
    <View as="div">
      <Heading level="h3" margin="0 0 small">
        Quizzes
      </Heading>
      <Table caption={`Quizzes of ${course.name}`} layout={narrow ? 'stacked' : 'auto'} hover>
        <Table.Head>
          <Table.Row>
            <Table.ColHeader id="quiz">Quiz</Table.ColHeader>
            <Table.ColHeader id="type">Type</Table.ColHeader>
            <Table.ColHeader id="exb">Exam browser</Table.ColHeader>
            <Table.ColHeader id="state">Status</Table.ColHeader>
            <Table.ColHeader id="actions">{narrow ? null : <ScreenReaderContent>Actions</ScreenReaderContent>}</Table.ColHeader>
          </Table.Row>
        </Table.Head>
        <Table.Body>
          {course.assessments.map((assessment) => (
            <Table.Row key={assessment.id}>
              <Table.RowHeader>
                <Text weight="bold">{assessment.title}</Text>
                {!assessment.published && (
                  <Text as="div" size="small" color="secondary">
                    Unpublished
                  </Text>
                )}
              </Table.RowHeader>
              <Table.Cell>{CONTENT_TYPE_LABEL[assessment.contentType]}</Table.Cell>
              <Table.Cell>
                <EnforcementSwitch courseId={course.id} assessment={assessment} />
              </Table.Cell>
              <Table.Cell>
                <StatusBadges assessment={assessment} />
              </Table.Cell>
              <Table.Cell textAlign="end">
                <Button
                  size="small"
                  onClick={() => onManage(assessment.id)}
                  elementRef={(element) => registerActionButton(assessment.id, element instanceof HTMLElement ? element : null)}
                >
                  Passwords and codes
                  <ScreenReaderContent> of {assessment.title}</ScreenReaderContent>
                </Button>
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </View>
  );
}
