import { Alert, Button, CloseButton, Flex, Heading, IconRefreshLine, IconResetLine, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { FocusTarget } from '../../components/FocusTarget';
import { getLiveRegion } from '../../lib/live-region';
import { readServerError, useTRPC, useTRPCClient } from '../../lib/trpc';
import { PasswordReveal } from '../teacher/PasswordReveal';
import type { AdminAssessment } from './model';

type Outcome = { variant: 'success' | 'error'; text: string };
type Action = 'regenerateCode' | 'resetExitPassword' | 'resetDefaults';

const FAILURE_HINT: Partial<Record<string, string>> = {
  [ErrorCodes.EXB_NOT_ENABLED]: 'Require the exam browser for this quiz first; it then gets an access code.',
};

/** The less frequent changes of one assessment, in a panel below the table: passwords, access code, policy resets. */
export function AssessmentActions({ courseId, assessment, onClose }: { courseId: string; assessment: AdminAssessment; onClose: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const heading = useRef<HTMLElement | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [running, setRunning] = useState<Action | null>(null);
  useEffect(() => heading.current?.focus(), [assessment.id]);

  const options = (action: Action) => ({
    onMutate: () => {
      setOutcome(null);
      setRunning(action);
    },
    onSuccess: (result: { message: string }) => {
      setOutcome({ variant: 'success', text: result.message });
      void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
    },
    onError: (error: unknown) => {
      const refusal = readServerError(error);
      setOutcome({ variant: 'error', text: `${refusal.message} ${FAILURE_HINT[refusal.errorCode ?? ''] ?? ''}`.trim() });
    },
    onSettled: () => setRunning(null),
  });
  const regenerate = useMutation(trpc.admin.assessments.regenerateCode.mutationOptions(options('regenerateCode')));
  const resetExit = useMutation(trpc.admin.assessments.resetExitPassword.mutationOptions(options('resetExitPassword')));
  const resetDefaults = useMutation(trpc.admin.assessments.resetDefaults.mutationOptions(options('resetDefaults')));
  const input = { courseId, assessmentId: assessment.id };
  const run = (mutation: { mutate: (value: typeof input) => void }) => {
    if (running === null) mutation.mutate(input);
  };

  return (
    <View as="section" display="block" margin="medium 0 0" padding="medium" borderWidth="small" borderRadius="medium" aria-labelledby="assessment-actions-heading">
      <Flex justifyItems="space-between" alignItems="start" margin="0 0 small">
        <FocusTarget focusRef={(element) => void (heading.current = element)}>
          <Heading level="h3" id="assessment-actions-heading">
            {assessment.title}
          </Heading>
        </FocusTarget>
        <CloseButton screenReaderLabel={`Close the actions of ${assessment.title}`} onClick={onClose} size="small" />
      </Flex>
      <View as="div" margin="0 0 medium">
        <PasswordReveal subject={assessment.title} reveal={() => client.admin.assessments.revealPasswords.mutate(input)} />
        <Text as="p" size="small" color="secondary">
          Shows the start and exit passwords, and the access code as the LMS holds it now.
        </Text>
      </View>
      <Flex gap="small" wrap="wrap" alignItems="center">
        <Button renderIcon={<IconRefreshLine />} onClick={() => run(regenerate)}>
          New access code
        </Button>
        <Button renderIcon={<IconResetLine />} onClick={() => run(resetExit)}>
          Use the course exit password
        </Button>
        <Button renderIcon={<IconResetLine />} onClick={() => run(resetDefaults)}>
          Reset to course defaults
        </Button>
        {running !== null && <Spinner renderTitle="Saving the change" size="x-small" />}
      </Flex>
      <Text as="p" size="small" color="secondary">
        A new access code stops the old one at once; students who already downloaded a configuration download it again. The resets
        keep the exam browser requirement and the access code.
      </Text>
      {outcome !== null && (
        <Alert
          variant={outcome.variant}
          variantScreenReaderLabel={outcome.variant === 'success' ? 'Success,' : 'Error,'}
          hasShadow={false}
          margin="small 0 0"
          liveRegion={getLiveRegion}
          liveRegionPoliteness={outcome.variant === 'success' ? 'polite' : 'assertive'}
        >
          {outcome.text}
        </Alert>
      )}
    </View>
  );
}
