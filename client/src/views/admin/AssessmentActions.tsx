import { Button, CloseButton, Flex, Heading, IconRefreshLine, IconResetLine, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { ExamDayHelp } from '../../components/exam-day/ExamDayHelp';
import { FocusTarget } from '../../components/FocusTarget';
import { StatusAlert } from '../../components/StatusAlert';
import { readServerError, useTRPC, useTRPCClient } from '../../lib/trpc';
import { PasswordReveal } from '../../components/PasswordReveal';
import type { AdminAssessment } from './model';

type Outcome = { variant: 'success' | 'error'; text: string };
type Action = 'regenerateCode' | 'resetExitPassword' | 'resetDefaults';

/** The less frequent changes of one assessment, in a panel below the table: passwords, access code, policy resets. */
export function AssessmentActions({ courseId, assessment, onClose }: { courseId: string; assessment: AdminAssessment; onClose: () => void }) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const heading = useRef<HTMLElement | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [running, setRunning] = useState<Action | null>(null);
  // A new code voids every configuration already downloaded, so it is asked for twice.
  const [confirmingCode, setConfirmingCode] = useState(false);
  const confirmButton = useRef<HTMLElement | null>(null);
  useEffect(() => heading.current?.focus(), [assessment.id]);
  useEffect(() => {
    if (confirmingCode) confirmButton.current?.focus();
  }, [confirmingCode]);

  const options = (action: Action) => ({
    onMutate: () => {
      setOutcome(null);
      setRunning(action);
    },
    // The answer's message is the API's, in English; the page says the same in its own words.
    onSuccess: () => {
      setOutcome({ variant: 'success', text: t(`actions.done.${action}`) });
      void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
    },
    onError: (error: unknown) => {
      const refusal = readServerError(error);
      setOutcome({ variant: 'error', text: refusal.errorCode === ErrorCodes.EXB_NOT_ENABLED ? t('actions.notEnabled', { reason: refusal.message }) : refusal.message });
    },
    onSettled: () => {
      setRunning(null);
      setConfirmingCode(false);
    },
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
        <CloseButton screenReaderLabel={t('actions.close', { title: assessment.title })} onClick={onClose} size="small" />
      </Flex>
      <View as="div" margin="0 0 medium">
        <PasswordReveal
          subject={assessment.title}
          reveal={async () => {
            const revealed = await client.admin.assessments.revealPasswords.mutate(input);
            // The reveal checked the LMS's code too: the quiz list shows what it found, with its repairs.
            void queryClient.invalidateQueries({ queryKey: trpc.admin.courses.get.queryKey({ courseId }) });
            return revealed;
          }}
        />
        <Text as="p" size="small" color="secondary">
          {t('actions.revealHint')}
        </Text>
      </View>
      <Flex gap="small" wrap="wrap" alignItems="center">
        <Button renderIcon={<IconRefreshLine />} onClick={() => setConfirmingCode(true)} interaction={confirmingCode ? 'disabled' : 'enabled'}>
          {t('actions.regenerateCode')}
        </Button>
        <Button renderIcon={<IconResetLine />} onClick={() => run(resetExit)}>
          {t('actions.resetExitPassword')}
        </Button>
        <Button renderIcon={<IconResetLine />} onClick={() => run(resetDefaults)}>
          {t('actions.resetDefaults')}
        </Button>
        {running !== null && <Spinner renderTitle={t('actions.saving')} size="x-small" />}
      </Flex>
      {confirmingCode && (
        <View as="div" margin="small 0 0" padding="small" borderWidth="small" borderRadius="medium">
          <Text as="p">{t('actions.confirmCode', { title: assessment.title })}</Text>
          <Flex gap="small" wrap="wrap">
            <Button color="danger" elementRef={(element) => void (confirmButton.current = element as HTMLElement | null)} onClick={() => run(regenerate)}>
              {t('actions.replaceCode')}
            </Button>
            <Button onClick={() => setConfirmingCode(false)}>{t('cancel')}</Button>
          </Flex>
        </View>
      )}
      <Text as="p" size="small" color="secondary">
        {t('actions.hint')}
      </Text>
      {outcome !== null && (
        <StatusAlert variant={outcome.variant} margin="small 0 0" live={outcome.variant === 'success' ? 'polite' : 'assertive'}>
          {outcome.text}
        </StatusAlert>
      )}
      {assessment.exbRequired && assessment.enabled && assessment.hasAccessCode && (
        <ExamDayHelp scope={{ kind: 'admin', courseId }} assessment={assessment} />
      )}
    </View>
  );
}
