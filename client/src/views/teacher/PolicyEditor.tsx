import { Alert, Button, Flex, Heading, IconArrowOpenStartLine, Link, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ExamDayHelp } from '../../components/exam-day/ExamDayHelp';
import { FocusTarget } from '../../components/FocusTarget';
import { ActivityPanel } from './ActivityPanel';
import { getLiveRegion } from '../../lib/live-region';
import { readServerError, useTRPC } from '../../lib/trpc';
import { EnforcementToggle, isEnforced, StatusBadges } from './Enforcement';
import { QuestionAnswers, useInlineQuestion } from './InlineQuestion';
import { type Assessment, type AssessmentSetting, type CourseScope } from './model';
import { savedPolicies } from './policy-draft';
import { PolicyForm } from './PolicyForm';
import { useCourseDefaults } from './queries';
import { useLeaveGuard, useWarnBeforeUnload } from './unsaved-changes';
import { effectiveReadings, UrlRuleReadingList, useUrlRuleReadings } from './UrlRuleReadings';
import { useVerification, VerificationNotice } from './Verification';

/** One assessment's exam settings: enforcement, allowed websites, tools and passwords. */
export function PolicyEditor({
  scope,
  assessment,
  setting,
  onClose,
  onOpenCourseDefaults,
  focusRule = null,
}: {
  scope: CourseScope;
  assessment: Assessment;
  setting: AssessmentSetting;
  onClose: () => void;
  onOpenCourseDefaults: (field?: string) => void;
  /** The stored value of an own rule to put the focus on once the form shows (a marked rule's "Change the rule"). */
  focusRule?: string | null;
}) {
  const { t } = useTranslation(['teacher', 'common']);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const statusInput = { courseId: scope.courseId, quizId: assessment.id };
  const statusKey = trpc.instructor.enforcement.status.queryKey(statusInput);
  const status = useQuery(trpc.instructor.enforcement.status.queryOptions(statusInput));
  const defaults = useCourseDefaults(scope);
  const verification = useVerification().data?.[assessment.id];
  const ruleReadings = useUrlRuleReadings().data;
  const headingRef = useRef<HTMLElement | null>(null);
  // A reset replaces the stored policy; a new form instance starts again from what the server then shows.
  const [formVersion, setFormVersion] = useState(0);
  const [dirty, setDirty] = useState(false);
  const leave = useLeaveGuard(dirty, t('editor.leaveSubject', { title: assessment.title }));
  useWarnBeforeUnload(dirty);
  const close = () => leave.guard(onClose);

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  const ready = status.data !== undefined && defaults.data !== undefined;
  const headingId = `policy-heading-${assessment.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;

  return (
    <View as="section" display="block" aria-labelledby={headingId}>
      <Link as="button" onClick={close} renderIcon={<IconArrowOpenStartLine />} isWithinText={false} margin="0 0 small">
        {t('editor.allAssessments')}
      </Link>
      <FocusTarget focusRef={(element) => void (headingRef.current = element)}>
        <Heading level="h2" id={headingId}>
          {assessment.title}
        </Heading>
      </FocusTarget>
      <Flex gap="small" alignItems="center" wrap="wrap" margin="x-small 0 medium">
        <Text color="secondary">
          {t(`assessments.contentType.${assessment.contentType}`)} ·{' '}
          {assessment.published ? t('assessments.published') : t('assessments.unpublished')}
        </Text>
        <StatusBadges setting={setting} verification={verification} />
      </Flex>
      <VerificationNotice assessment={assessment} setting={setting} record={verification} />
      <UrlRuleReadingList scope={scope} readings={effectiveReadings(ruleReadings, assessment.id)} assessment={assessment} onOpenCourseDefaults={onOpenCourseDefaults} />

      <EnforcementSection
        scope={scope}
        assessment={assessment}
        setting={setting}
        onOpenCourseDefaults={onOpenCourseDefaults}
        // Said beside the switch while the form below holds changes: requiring now would use the settings as last saved.
        lockedNote={dirty ? t('enforcement.lockedNote') : undefined}
      />

      <ActivityPanel scope={scope} assessment={assessment} />
      {isEnforced(setting) && <ExamDayHelp scope={{ kind: 'teacher', courseId: scope.courseId }} assessment={assessment} />}

      {!ready ? (
        status.isError || defaults.isError ? (
          <Alert variant="error" variantScreenReaderLabel={t('common:variant.error')} hasShadow={false}>
            {t('editor.loadFailed', { reason: readServerError(status.error ?? defaults.error).message })}
          </Alert>
        ) : (
          <View as="div" textAlign="center" padding="large">
            <Spinner renderTitle={t('editor.loading')} size="small" />
          </View>
        )
      ) : (
        <PolicyForm
          key={formVersion}
          scope={scope}
          assessment={assessment}
          setting={setting}
          status={status.data}
          defaults={defaults.data.defaults}
          saved={savedPolicies.get(assessment.id)}
          onClose={close}
          onDirtyChange={setDirty}
          onDiscard={() => {
            setFormVersion((version) => version + 1);
            headingRef.current?.focus();
          }}
          onReset={() => {
            savedPolicies.delete(assessment.id);
            // The new form starts from what the server shows after the reset, not from the answer before it.
            void queryClient.refetchQueries({ queryKey: statusKey }).then(() => {
              setFormVersion((version) => version + 1);
              // The form the reset button was in is replaced; the top of the editor is where to continue.
              headingRef.current?.focus();
            });
          }}
          onOpenCourseDefaults={onOpenCourseDefaults}
          focusRule={formVersion === 0 ? focusRule : null}
        />
      )}
      {leave.dialog}
    </View>
  );
}

function EnforcementSection({
  scope,
  assessment,
  setting,
  onOpenCourseDefaults,
  lockedNote,
}: {
  scope: CourseScope;
  assessment: Assessment;
  setting: AssessmentSetting;
  onOpenCourseDefaults: (field?: string) => void;
  lockedNote: string | undefined;
}) {
  const { t } = useTranslation(['teacher', 'common']);
  const trpc = useTRPC();
  const question = useInlineQuestion();
  const [outcome, setOutcome] = useState<{ variant: 'success' | 'error'; text: string } | null>(null);
  const regenerate = useMutation(
    trpc.instructor.enforcement.regenerateCode.mutationOptions({
      onSuccess: () => setOutcome({ variant: 'success', text: t('editor.codeReplaced') }),
      onError: (error) => {
        const refusal = readServerError(error);
        if (refusal.authUrl === undefined) setOutcome({ variant: 'error', text: refusal.message });
      },
      onSettled: question.close,
    }),
  );
  return (
    <View as="div" padding="small medium" margin="0 0 medium" borderWidth="small" borderRadius="medium">
      <Flex gap="medium" alignItems="center" wrap="wrap" justifyItems="space-between">
        <EnforcementToggle
          assessment={assessment}
          setting={setting}
          onOpenCourseDefaults={onOpenCourseDefaults}
          visibleLabel
          lockedNote={lockedNote}
        />
        {isEnforced(setting) && !question.asking && (
          <Button size="small" onClick={question.ask} elementRef={question.askRef}>
            {t('editor.replaceCode')}
          </Button>
        )}
      </Flex>
      {question.asking && (
        <View as="div" margin="small 0 0">
          <Text as="p">{t('editor.replaceQuestion')}</Text>
          <Flex gap="small">
            <QuestionAnswers
              question={question}
              labels={{ act: t('editor.replaceNow'), acting: t('editor.replacing'), giveUp: t('editor.keepCode') }}
              pending={regenerate.isPending}
              onAct={() => regenerate.mutate({ courseId: scope.courseId, quizId: assessment.id })}
            />
          </Flex>
        </View>
      )}
      {outcome !== null && (
        <Alert
          variant={outcome.variant}
          variantScreenReaderLabel={t(outcome.variant === 'success' ? 'common:variant.success' : 'common:variant.error')}
          hasShadow={false}
          margin="small 0 0"
          liveRegion={getLiveRegion}
          renderCloseButtonLabel={t('action.dismiss')}
          onDismiss={() => setOutcome(null)}
        >
          {outcome.text}
        </Alert>
      )}
    </View>
  );
}
