import { Button, Flex, Pill, ScreenReaderContent, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useConnection } from './connection';
import type { Assessment } from './model';
import { useVerificationRefetch } from './Verification';

/**
 * A quiz the LMS protects with an access code this tool does not manage (a course copy carries codes along): students
 * would wait at a prompt nobody can answer. The teacher clears the code in the LMS, or adopts the quiz, which requires
 * the exam browser and puts this tool’s own code in the LMS (the same path as the switch), or adopts it with the settings
 * of the enforced assessment it was copied from, which the teacher picks among those of the same title in courses they
 * teach.
 */
/** Whether a row's list of adopt candidates is open; held above the rows, which a layout switch mounts anew. */
export interface AdoptPicker {
  isOpen(assessmentId: string): boolean;
  setOpen(assessmentId: string, open: boolean): void;
}

export function UnmanagedCodeNotice({ assessment, picker }: { assessment: Assessment; picker: AdoptPicker }) {
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
  const picking = picker.isOpen(assessment.id);
  const setPicking = (open: boolean) => picker.setOpen(assessment.id, open);
  const input = { courseId: assessment.courseId, quizId: assessment.id };
  const candidates = useQuery({ ...trpc.instructor.enforcement.adoptCandidates.queryOptions(input), enabled: picking && assessment.unmanagedAccessCode });
  const adoptOriginal = useMutation(
    trpc.instructor.enforcement.adoptOriginal.mutationOptions({
      onSuccess: () => {
        setPicking(false);
        done(t('preExam.adopted'));
      },
      onError,
    }),
  );
  if (!assessment.unmanagedAccessCode) return <>{announcement}</>;
  const interaction = connection.connected === false || clear.isPending || adopt.isPending || adoptOriginal.isPending ? 'disabled' : 'enabled';
  const failure = clear.error ?? adopt.error ?? adoptOriginal.error ?? candidates.error;
  const found = candidates.data?.candidates;
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
          <Button size="small" interaction={interaction} aria-expanded={picking} onClick={() => setPicking(!picking)}>
            {t('preExam.adoptOriginal')}
            <ScreenReaderContent> {t('unmanagedCode.of', { title: assessment.title })}</ScreenReaderContent>
          </Button>
        </Flex>
        {picking && found !== undefined && (
          <View as="div" margin="x-small 0 0">
            <Text as="p" size="small">
              {t(found.length === 0 ? 'preExam.adoptNone' : 'preExam.adoptPick')}
            </Text>
            <Flex gap="x-small" wrap="wrap">
              {found.map((candidate) => (
                <Button
                  key={`${candidate.courseId}|${candidate.contentId}`}
                  size="small"
                  interaction={interaction}
                  onClick={() => adoptOriginal.mutate({ ...input, sourceCourseId: candidate.courseId, sourceContentId: candidate.contentId })}
                >
                  {t('preExam.adoptFrom', { course: candidate.courseName })}
                </Button>
              ))}
            </Flex>
          </View>
        )}
        {failure !== null && (
          <Text as="p" size="small" color="danger">
            {readServerError(failure).message}
          </Text>
        )}
      </View>
    </>
  );
}
