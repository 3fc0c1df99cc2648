import { Button, Flex, Pill, ScreenReaderContent, Text, View } from '@instructure/ui';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { readServerError, useTRPCClient } from '../../lib/trpc';
import { useAnnouncer } from '../Announcer';
import { usePickerOpen } from './picker-store';
import { unmanagedCodeApi, type AdoptCandidate, type UnmanagedCodeScope } from './unmanaged-code-api';

type Choice = { readonly kind: 'clear' } | { readonly kind: 'adopt' } | { readonly kind: 'original'; readonly candidate: AdoptCandidate };

export interface UnmanagedCodeChoicesProps {
  readonly scope: UnmanagedCodeScope;
  readonly assessment: { readonly id: string; readonly title: string; readonly unmanagedAccessCode: boolean };
  /** Shows the "not managed here" badge above the choices (where the row's badges do not already say it). */
  readonly withBadge?: boolean;
  /** No choice may run now (the teacher's view while it is not connected to the LMS). */
  readonly disabled?: boolean;
  /** After a choice succeeded: what the page reads again. */
  readonly onChanged: () => void;
}

/**
 * A quiz the LMS protects with an access code this tool does not manage (a course copy carries codes along): students
 * would wait at a prompt nobody can answer. The choices, the same for a teacher and the root administrator: clear the
 * code in the LMS; adopt the quiz, which requires the exam browser and puts this tool's own code in the LMS; or adopt
 * it with the settings of the enforced assessment it was copied from, picked among those of the same title (in courses
 * the teacher teaches, or in the account's connected courses). Stays mounted once the code is gone, so the outcome is
 * still announced.
 */
export function UnmanagedCodeChoices({ scope, assessment, withBadge = false, disabled = false, onChanged }: UnmanagedCodeChoicesProps) {
  const { t } = useTranslation('teacher');
  const client = useTRPCClient();
  const api = unmanagedCodeApi(client, scope, assessment.id);
  const [announcement, announce] = useAnnouncer();
  const [picking, setPicking] = usePickerOpen(`${scope.kind}|${scope.courseId}|${assessment.id}`);
  const titled = (message: string) => t('action.titled', { title: assessment.title, message });
  const choose = useMutation({
    mutationFn: (choice: Choice) => (choice.kind === 'clear' ? api.clear() : choice.kind === 'adopt' ? api.adopt() : api.adoptOriginal(choice.candidate)),
    onSuccess: (_result, choice) => {
      if (choice.kind === 'original') setPicking(false);
      announce(titled(t(choice.kind === 'clear' ? 'unmanagedCode.cleared' : choice.kind === 'adopt' ? 'unmanagedCode.adopted' : 'preExam.adopted')));
      onChanged();
    },
    onError: (error) => announce(titled(readServerError(error).message), 'assertive'),
  });
  const candidates = useQuery({
    queryKey: ['adopt-candidates', scope.kind, scope.courseId, assessment.id],
    queryFn: () => api.candidates(),
    enabled: picking && assessment.unmanagedAccessCode,
  });
  if (!assessment.unmanagedAccessCode) return announcement;
  const interaction = disabled || choose.isPending ? 'disabled' : 'enabled';
  const failure = choose.error ?? candidates.error;
  const found = candidates.data;
  const forTitle = <ScreenReaderContent> {t('unmanagedCode.of', { title: assessment.title })}</ScreenReaderContent>;
  // Where the candidates come from, in the words of the scope's role.
  const pickWords =
    scope.kind === 'admin'
      ? ({ none: 'preExam.adoptNoneConnected', pick: 'preExam.adoptPickConnected' } as const)
      : ({ none: 'preExam.adoptNone', pick: 'preExam.adoptPick' } as const);
  return (
    <>
      {announcement}
      <View as="div" margin="xx-small 0 0" data-testid="unmanaged-code-choices">
        {withBadge && <Pill color="warning">{t('unmanagedCode.badge')}</Pill>}
        <Text as="p" size="small">
          {t('unmanagedCode.explanation')}
        </Text>
        <Flex gap="x-small" wrap="wrap" margin="xx-small 0 0">
          <Button size="small" color="primary" interaction={interaction} onClick={() => choose.mutate({ kind: 'clear' })}>
            {t('unmanagedCode.clear')}
            {forTitle}
          </Button>
          <Button size="small" interaction={interaction} onClick={() => choose.mutate({ kind: 'adopt' })}>
            {t('unmanagedCode.adopt')}
            {forTitle}
          </Button>
          <Button size="small" interaction={interaction} aria-expanded={picking} onClick={() => setPicking(!picking)}>
            {t('preExam.adoptOriginal')}
            {forTitle}
          </Button>
        </Flex>
        {picking && found !== undefined && (
          <View as="div" margin="x-small 0 0">
            <Text as="p" size="small">
              {t(found.length === 0 ? pickWords.none : pickWords.pick)}
            </Text>
            <Flex gap="x-small" wrap="wrap">
              {found.map((candidate) => (
                <Button
                  key={`${candidate.courseId}|${candidate.contentId}`}
                  size="small"
                  interaction={interaction}
                  onClick={() => choose.mutate({ kind: 'original', candidate })}
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
