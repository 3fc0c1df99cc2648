import { Alert, Button, Heading, List, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { FocusTarget } from '../../components/FocusTarget';
import { readServerError, useTRPC } from '../../lib/trpc';
import { CONTENT_TYPE_NAME, plural, type NamedAssessment, type ResetOutcome } from './reset-outcome';

export function AssessmentList({ assessments }: { assessments: readonly NamedAssessment[] }) {
  return (
    <List margin="0 0 small">
      {assessments.map((assessment) => (
        <List.Item key={assessment.id}>
          {assessment.title} <Text color="secondary">({CONTENT_TYPE_NAME[assessment.contentType]})</Text>
        </List.Item>
      ))}
    </List>
  );
}

const TITLE: Record<ResetOutcome['kind'], string> = {
  done: 'Done',
  'rolled-back': 'Rolled back, nothing lost',
  refused: 'Not reset',
  verify: 'Verification needed',
};

const VARIANT = { done: 'success', 'rolled-back': 'warning', refused: 'error', verify: 'error' } as const;
const LABEL = { success: 'Success,', warning: 'Warning,', error: 'Error,' } as const;

/** How the reset ended, said plainly; after an unclear end, the assessments to check and a refresh from the LMS. */
export function ResetOutcomePanel({ courseId, courseName, outcome }: { courseId: string; courseName: string; outcome: ResetOutcome }) {
  const heading = useRef<HTMLElement | null>(null);
  useEffect(() => heading.current?.focus(), [outcome]);
  const variant = VARIANT[outcome.kind];
  return (
    <View as="div" role="status">
      <FocusTarget focusRef={(element) => void (heading.current = element)}>
        <Heading level="h3" margin="0 0 x-small">
          {TITLE[outcome.kind]}
        </Heading>
      </FocusTarget>
      <Alert variant={variant} variantScreenReaderLabel={LABEL[variant]} hasShadow={false} margin="0 0 small">
        {outcome.kind === 'done' ? (
          <>
            <Text as="p">
              {courseName} is reset: {plural(outcome.result.assessmentsCleared, 'quiz', 'quizzes')} cleared,{' '}
              {plural(outcome.result.accessCodesRemoved, 'access code')} removed in the LMS.
            </Text>
            <Text as="p" size="small">
              Receipt {outcome.result.receipt.id}, {new Date(outcome.result.receipt.resetAt).toLocaleString()}.
            </Text>
          </>
        ) : (
          <Text as="p">{outcome.message}</Text>
        )}
      </Alert>
      {outcome.kind !== 'done' && outcome.assessments.length > 0 && (
        <>
          <Text as="p">{outcome.kind === 'verify' ? 'Check these quizzes in the LMS:' : 'The quizzes concerned:'}</Text>
          <AssessmentList assessments={outcome.assessments} />
        </>
      )}
      {outcome.kind === 'verify' && <RefreshCourse courseId={courseId} />}
    </View>
  );
}

/** Reads the course again from the LMS, so what the tool shows is what the LMS holds now. */
function RefreshCourse({ courseId }: { courseId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = useMutation(
    trpc.admin.courses.refresh.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() }),
    }),
  );
  return (
    <View as="div">
      <Button
        onClick={() => {
          if (!refresh.isPending) refresh.mutate({ courseId });
        }}
      >
        Refresh the course from the LMS
      </Button>
      {refresh.isPending && <Spinner renderTitle="Reading the course from the LMS" size="x-small" margin="0 0 0 small" />}
      {refresh.isSuccess && (
        <Text as="p" size="small">
          Refreshed: the LMS lists {plural(refresh.data.assessmentCount, 'quiz', 'quizzes')}; {refresh.data.assessments.filter((a) => a.exbRequired).length} require the
          exam browser here.
        </Text>
      )}
      {refresh.isError && (
        <Text as="p" size="small" color="danger">
          {readServerError(refresh.error).message}
        </Text>
      )}
    </View>
  );
}
