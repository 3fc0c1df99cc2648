import { Button, Flex, Pill, ScreenReaderContent, Text, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useConnection } from './connection';
import type { Assessment } from './model';
import { useVerificationRefetch } from './Verification';

/**
 * A quiz the LMS protects with an access code this tool does not manage (a course copy carries codes along): students
 * would wait at a prompt nobody can answer. The teacher clears the code in the LMS, or adopts the quiz, which requires
 * the exam browser and puts this tool's own code in the LMS (the same path as the switch).
 */
export function UnmanagedCodeNotice({ assessment }: { assessment: Assessment }) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useConnection();
  const refetchVerification = useVerificationRefetch();
  const [announcement, announce] = useAnnouncer();
  const done = (message: string) => {
    announce(t('action.titled', { title: assessment.title, message }));
    void queryClient.invalidateQueries({ queryKey: trpc.instructor.assessments.list.queryKey() });
    refetchVerification();
  };
  const onError = (error: unknown) => announce(t('action.titled', { title: assessment.title, message: readServerError(error).message }), 'assertive');
  const clear = useMutation(trpc.instructor.enforcement.clearLmsCode.mutationOptions({ onSuccess: () => done(t('unmanagedCode.cleared')), onError }));
  const adopt = useMutation(trpc.instructor.enforcement.enable.mutationOptions({ onSuccess: () => done(t('unmanagedCode.adopted')), onError }));
  if (!assessment.unmanagedAccessCode) return <>{announcement}</>;
  const input = { courseId: assessment.courseId, quizId: assessment.id };
  const interaction = connection.connected === false || clear.isPending || adopt.isPending ? 'disabled' : 'enabled';
  const failure = clear.error ?? adopt.error;
  return (
    <>
      {announcement}
      <View as="div" margin="xx-small 0 0">
        <Pill color="warning">{t('unmanagedCode.badge')}</Pill>
        <Text as="p" size="small">
          {t('unmanagedCode.explanation')}
        </Text>
        <Flex gap="x-small" wrap="wrap" margin="xx-small 0 0">
          <Button size="small" color="primary" interaction={interaction} onClick={() => clear.mutate(input)}>
            {t('unmanagedCode.clear')}
            <ScreenReaderContent> {t('unmanagedCode.of', { title: assessment.title })}</ScreenReaderContent>
          </Button>
          <Button size="small" interaction={interaction} onClick={() => adopt.mutate(input)}>
            {t('unmanagedCode.adopt')}
            <ScreenReaderContent> {t('unmanagedCode.of', { title: assessment.title })}</ScreenReaderContent>
          </Button>
        </Flex>
        {failure !== null && (
          <Text as="p" size="small" color="danger">
            {readServerError(failure).message}
          </Text>
        )}
      </View>
    </>
  );
}
