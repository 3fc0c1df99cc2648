import { Checkbox, Flex, Link, Pill, ScreenReaderContent, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useMutationState } from '@tanstack/react-query';
import { useId, type ReactNode } from 'react';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useConnection } from './connection';
import { fieldKey } from '../../lib/form-errors';
import type { Assessment, AssessmentSetting } from './model';
import { useSettingWriter } from './queries';
import { isUnprotected, VerificationBadge, type VerificationRecord } from './Verification';
import { BadgeList } from '../../components/BadgeList';

/** Enforcement is in force only when it is required, switched on locally and an access code is set in the LMS. */
export function isEnforced(setting: AssessmentSetting): boolean {
  return setting.exbRequired && setting.enabled && setting.hasAccessCode;
}

/** The switch that requires the exam browser for one assessment: the LMS changes first, the switch follows. */
export function EnforcementToggle({
  assessment,
  setting,
  onOpenCourseDefaults,
  visibleLabel = false,
  lockedNote,
}: {
  assessment: Assessment;
  setting: AssessmentSetting;
  /** Where a teacher sets the exit password that enabling needs. */
  onOpenCourseDefaults: (field?: string) => void;
  visibleLabel?: boolean;
  /** Why the switch cannot be used right now; it is disabled and this is said beside it. */
  lockedNote?: string | undefined;
}) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const connection = useConnection();
  const writeSetting = useSettingWriter();
  const [announcement, announce] = useAnnouncer();
  // The outcome lives in the mutation cache, not in this component, so a refusal stays visible when the row is drawn
  // anew (a refetch, a layout change).
  const mutationKey = ['enforcement-toggle', assessment.courseId, assessment.id];
  const mutation = useMutation({
    ...trpc.instructor.enforcement.setRequired.mutationOptions({
      onSuccess: (result, input) => {
        writeSetting(assessment.id, result.setting);
        announce(t(input.required ? 'enforcement.nowRequired' : 'enforcement.noLongerRequired', { title: assessment.title }));
      },
      onError: (error) => announce(t('action.titled', { title: assessment.title, message: readServerError(error).message }), 'assertive'),
    }),
    mutationKey,
  });
  const outcomes = useMutationState({ filters: { mutationKey, exact: true }, select: (entry) => entry.state });
  const last = outcomes[outcomes.length - 1];
  const failure = last?.status === 'error' ? readServerError(last.error) : null;

  const required = setting.exbRequired;
  const checked = mutation.isPending && mutation.variables ? mutation.variables.required : required;
  const blocked = connection.connected === false || lockedNote !== undefined;
  const label = t('enforcement.label', { title: assessment.title });
  const noteId = useId();
  const newQuizNoteId = useId();
  // A new quiz's prompt is in the engine's own frame, which no script can fill: its students are shown the code in the
  // exam browser and type it. Said before the teacher requires the exam browser, and read with the switch.
  const newQuizNote = assessment.contentType === 'NEW_QUIZ' && !required;
  const describedBy = [lockedNote !== undefined ? noteId : null, newQuizNote ? newQuizNoteId : null].filter((id) => id !== null).join(' ');

  let message: ReactNode = null;
  if (failure !== null && failure.authUrl === undefined) {
    message =
      failure.errorCode === ErrorCodes.EXB_QUIT_PASSWORD_REQUIRED ? (
        <>
          {t('enforcement.exitPasswordNeeded')}{' '}
          <Link as="button" onClick={() => onOpenCourseDefaults(fieldKey.password('quit'))} isWithinText>
            {t('enforcement.setExitPassword')}
          </Link>
        </>
      ) : (
        failure.message
      );
  } else if (failure !== null) {
    message = t('enforcement.authorizeFirst');
  }

  return (
    <View as="div">
      {announcement}
      <Flex gap="x-small" alignItems="center">
        <Checkbox
          variant="toggle"
          size="small"
          label={visibleLabel ? t('enforcement.visibleLabel') : <ScreenReaderContent>{label}</ScreenReaderContent>}
          aria-label={visibleLabel ? label : undefined}
          // The note stands outside the switch: a disabled switch is drawn faded, and its own messages are part of
          // its label, which `aria-label` replaces.
          aria-describedby={describedBy === '' ? undefined : describedBy}
          checked={checked}
          // Not disabled while the LMS answers: a disabled switch would drop the keyboard focus. The switch is
          // controlled, so further presses simply wait for the answer.
          disabled={blocked}
          aria-busy={mutation.isPending}
          onChange={(event) => {
            if (!mutation.isPending) mutation.mutate({ quizId: assessment.id, required: event.target.checked });
          }}
          messages={message !== null ? [{ type: 'newError', text: message }] : undefined}
        />
        {mutation.isPending && <Spinner renderTitle={t(checked ? 'enforcement.requiring' : 'enforcement.removing')} size="x-small" />}
      </Flex>
      {lockedNote !== undefined && (
        <Text as="p" size="small" id={noteId}>
          {lockedNote}
        </Text>
      )}
      {newQuizNote && (
        <View as="p" margin="xx-small 0 0" maxWidth="28rem">
          <Text size="small" id={newQuizNoteId}>
            {t('enforcement.newQuizCodeShown')}
          </Text>
        </View>
      )}
    </View>
  );
}

/** The badges of an assessment's enforcement state, in words a teacher reads at a glance. */
export function StatusBadges({ setting, verification }: { setting: AssessmentSetting; verification?: VerificationRecord | undefined }) {
  const { t } = useTranslation('teacher');
  const badges: ReactNode[] = [];
  // The stored state says "required", but the LMS no longer holds the code: never show that as protected.
  if (isEnforced(setting) && isUnprotected(verification)) {
    badges.push(<VerificationBadge key="lms" record={verification} />);
  } else if (isEnforced(setting)) {
    badges.push(
      <Pill key="on" color="success">
        {t('badge.required')}
      </Pill>,
    );
  } else if (setting.exbRequired && !setting.hasAccessCode) {
    badges.push(
      <Pill key="code" color="danger">
        {t('badge.codeMissing')}
      </Pill>,
    );
  } else if (setting.exbRequired !== setting.enabled) {
    badges.push(
      <Pill key="pending" color="warning">
        {t('badge.pending')}
      </Pill>,
    );
  }
  if (isEnforced(setting) && verification?.status === 'unverified') badges.push(<VerificationBadge key="lms" record={verification} />);
  if (!setting.usesCourseDefaults) {
    badges.push(
      <Pill key="own" color="info">
        {t('badge.ownWebsites')}
      </Pill>,
    );
  }
  return <BadgeList badges={badges} emptyLabel={t('badge.notRequired')} />;
}
