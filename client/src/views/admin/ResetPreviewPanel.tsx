import { Alert, Button, Heading, List, Spinner, Text, TextInput, View } from '@instructure/ui';
import { readServerError } from '../../lib/trpc';
import { AssessmentList } from './ResetOutcomePanel';
import { failedOutcome, plural, type ResetPreview } from './reset-outcome';

interface ResetPreviewPanelProps {
  courseId: string;
  preview: { data: ResetPreview | undefined; error: unknown; isPending: boolean; refetch: () => unknown };
  typed: string;
  onType: (value: string) => void;
}

/** What the reset will change, from its read-only preflight, and the field where the course id is typed to confirm. */
export function ResetPreviewPanel({ courseId, preview, typed, onType }: ResetPreviewPanelProps) {
  if (preview.isPending) {
    return (
      <View as="div" textAlign="center" padding="medium">
        <Spinner renderTitle="Reading the course’s quizzes and access codes from the LMS" size="small" />
      </View>
    );
  }
  if (preview.data === undefined) {
    const problem = failedOutcome(preview.error);
    return (
      <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
        <Text as="p">The reset cannot start: {readServerError(preview.error).message}</Text>
        {problem.assessments.length > 0 && <AssessmentList assessments={problem.assessments} />}
        <Button margin="small 0 0" onClick={() => void preview.refetch()}>
          Check again
        </Button>
      </Alert>
    );
  }
  const { data } = preview;
  const withCodes = data.assessments.filter((assessment) => assessment.lms === 'code');
  const mismatch = typed.length > 0 && typed.trim() !== courseId;
  return (
    <View as="div">
      <Text as="p">
        The reset removes the exam browser setup of <Text weight="bold">{data.courseName}</Text>, in the LMS and in this tool. It cannot be
        undone.
      </Text>
      <Heading level="h3" margin="small 0 xx-small">
        In the LMS
      </Heading>
      {withCodes.length > 0 ? (
        <>
          <Text as="p">
            The access {withCodes.length === 1 ? 'code' : 'codes'} of {plural(withCodes.length, 'quiz', 'quizzes')} {withCodes.length === 1 ? 'is' : 'are'}{' '}
            removed, so students can open {withCodes.length === 1 ? 'it' : 'them'} without the exam browser:
          </Text>
          <AssessmentList assessments={withCodes} />
        </>
      ) : (
        <Text as="p">This tool has set no access code in this course; nothing changes in the LMS.</Text>
      )}
      <Heading level="h3" margin="small 0 xx-small">
        In this tool
      </Heading>
      <List margin="0 0 small">
        <List.Item>{plural(data.assessmentsCleared, 'quiz', 'quizzes')} cleared: enforcement and quiz settings.</List.Item>
        <List.Item>The course defaults, its exam tools and the school tools rolled out to it (the presets stay), and open student downloads.</List.Item>
        <List.Item>Instructors’ and students’ LMS authorizations are kept.</List.Item>
      </List>
      <TextInput
        renderLabel={`Type the course id, ${courseId}, to confirm`}
        value={typed}
        onChange={(_event, value) => onType(value)}
        autoComplete="off"
        messages={mismatch ? [{ type: 'error', text: `That is not ${courseId}.` }] : undefined}
      />
    </View>
  );
}
