import { Button, Heading, List, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { FocusTarget } from '../../components/FocusTarget';
import { StatusAlert } from '../../components/StatusAlert';
import { readServerError, useTRPC } from '../../lib/trpc';
import { formatDateTime } from './model';
import type { NamedAssessment, ResetOutcome } from './reset-outcome';

export function AssessmentList({ assessments }: { assessments: readonly NamedAssessment[] }) {
  const { t } = useTranslation('admin');
  return (
    <List margin="0 0 small">
      {assessments.map((assessment) => (
        <List.Item key={assessment.id}>
          {assessment.title} <Text color="secondary">({t(`contentTypeName.${assessment.contentType}`)})</Text>
        </List.Item>
      ))}
    </List>
  );
}

const VARIANT = { done: 'success', 'rolled-back': 'warning', refused: 'error', verify: 'error' } as const;

/** How the reset ended, said plainly; after an unclear end, the assessments to check and a refresh from the LMS. */
export function ResetOutcomePanel({ courseId, courseName, outcome }: { courseId: string; courseName: string; outcome: ResetOutcome }) {
  const { t } = useTranslation('admin');
  const heading = useRef<HTMLElement | null>(null);
  useEffect(() => heading.current?.focus(), [outcome]);
  return (
    <View as="div" role="status">
      <FocusTarget focusRef={(element) => void (heading.current = element)}>
        <Heading level="h3" margin="0 0 x-small">
          {t(`reset.outcome.${outcome.kind}`)}
        </Heading>
      </FocusTarget>
      <StatusAlert variant={VARIANT[outcome.kind]} margin="0 0 small">
        {outcome.kind === 'done' ? (
          <>
            <Text as="p">
              {t('reset.doneSummary', {
                course: courseName,
                quizzes: t('reset.quizCount', { count: outcome.result.assessmentsCleared }),
                codes: t('reset.codeCount', { count: outcome.result.accessCodesRemoved }),
              })}
            </Text>
            <Text as="p" size="small">
              {t('reset.receipt', { id: outcome.result.receipt.id, at: formatDateTime(outcome.result.receipt.resetAt) })}
            </Text>
          </>
        ) : (
          <>
            {/* Why it stopped (the refusal's own message), then what that means for the course. */}
            <Text as="p">{outcome.message}</Text>
            <Text as="p">{t(`reset.outcomeLine.${outcome.kind}`)}</Text>
          </>
        )}
      </StatusAlert>
      {outcome.kind !== 'done' && outcome.assessments.length > 0 && (
        <>
          <Text as="p">{outcome.kind === 'verify' ? t('reset.checkThese') : t('reset.concerned')}</Text>
          <AssessmentList assessments={outcome.assessments} />
        </>
      )}
      {outcome.kind === 'verify' && <RefreshCourse courseId={courseId} />}
    </View>
  );
}

/** Reads the course again from the LMS, so what the tool shows is what the LMS holds now. */
function RefreshCourse({ courseId }: { courseId: string }) {
  const { t } = useTranslation('admin');
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
        {t('reset.refresh')}
      </Button>
      {refresh.isPending && <Spinner renderTitle={t('reset.refreshing')} size="x-small" margin="0 0 0 small" />}
      {refresh.isSuccess && (
        <Text as="p" size="small">
          {t('reset.refreshed', {
            quizzes: t('reset.quizCount', { count: refresh.data.assessmentCount }),
            count: refresh.data.assessments.filter((a) => a.exbRequired).length,
          })}
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
