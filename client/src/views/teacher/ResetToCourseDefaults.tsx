import { Button, Flex, IconResetLine, Text } from '@instructure/ui';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { FormError } from '../../lib/form-errors';
import { QuestionAnswers, useInlineQuestion } from './InlineQuestion';
import type { Assessment, CourseScope } from './model';
import { useSettingWriter } from './queries';
import { useUrlRuleReadingsRefetch } from './UrlRuleReadings';

/**
 * Clears an assessment's own websites, tools and passwords after asking in place. A refusal is the form's (it has no
 * field to stand next to); a reset replaces what the form shows, so `onReset` starts it again.
 */
export function ResetToCourseDefaults({
  scope,
  assessment,
  announce,
  onError,
  onReset,
}: {
  scope: CourseScope;
  assessment: Assessment;
  announce: (text: string) => void;
  onError: (error: FormError) => void;
  onReset: () => void;
}) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const writeSetting = useSettingWriter();
  const refetchRuleReadings = useUrlRuleReadingsRefetch();
  const question = useInlineQuestion();
  const reset = useMutation(
    trpc.instructor.enforcement.resetDefaults.mutationOptions({
      onSuccess: (result) => {
        writeSetting(assessment.id, result.setting);
        refetchRuleReadings();
        announce(t('reset.done'));
        onReset();
      },
      onError: (error) => {
        const refusal = readServerError(error);
        if (refusal.authUrl === undefined) onError({ key: undefined, message: refusal.message, errorCode: refusal.errorCode });
      },
    }),
  );

  if (!question.asking) {
    return (
      <Button renderIcon={<IconResetLine />} withBackground={false} onClick={question.ask} elementRef={question.askRef}>
        {t('reset.button')}
      </Button>
    );
  }
  return (
    <Flex gap="small" alignItems="center" wrap="wrap">
      <Text size="small">{t('reset.question')}</Text>
      <QuestionAnswers
        question={question}
        labels={{ act: t('reset.act'), acting: t('reset.acting'), giveUp: t('action.cancel') }}
        pending={reset.isPending}
        onAct={() => reset.mutate({ courseId: scope.courseId, quizId: assessment.id })}
      />
    </Flex>
  );
}
