import { Button, Heading, List, Spinner, Text, TextInput, View } from '@instructure/ui';
import { Trans, useTranslation } from 'react-i18next';
import { StatusAlert } from '../../components/StatusAlert';
import { readServerError } from '../../lib/trpc';
import { AssessmentList } from './ResetOutcomePanel';
import { failedOutcome, type ResetPreview } from './reset-outcome';

interface ResetPreviewPanelProps {
  courseId: string;
  preview: { data: ResetPreview | undefined; error: unknown; isPending: boolean; refetch: () => unknown };
  typed: string;
  onType: (value: string) => void;
}

/** What the reset will change, from its read-only preflight, and the field where the course id is typed to confirm. */
export function ResetPreviewPanel({ courseId, preview, typed, onType }: ResetPreviewPanelProps) {
  const { t } = useTranslation('admin');
  if (preview.isPending) {
    return (
      <View as="div" textAlign="center" padding="medium">
        <Spinner renderTitle={t('reset.previewLoading')} size="small" />
      </View>
    );
  }
  if (preview.data === undefined) {
    const problem = failedOutcome(preview.error);
    return (
      <StatusAlert>
        <Text as="p">{t('reset.cannotStart', { reason: readServerError(preview.error).message })}</Text>
        {problem.assessments.length > 0 && <AssessmentList assessments={problem.assessments} />}
        <Button margin="small 0 0" onClick={() => void preview.refetch()}>
          {t('reset.checkAgain')}
        </Button>
      </StatusAlert>
    );
  }
  const { data } = preview;
  const withCodes = data.assessments.filter((assessment) => assessment.lms === 'code');
  const mismatch = typed.length > 0 && typed.trim() !== courseId;
  return (
    <View as="div">
      <Text as="p">
        {/* The name is an element of its own, never text parsed for markup. */}
        <Trans t={t} i18nKey="reset.previewIntro" components={{ course: <Text weight="bold">{data.courseName}</Text> }} />
      </Text>
      <Heading level="h3" margin="small 0 xx-small">
        {t('reset.inLms')}
      </Heading>
      {withCodes.length > 0 ? (
        <>
          <Text as="p">{t('reset.codesRemoved', { count: withCodes.length })}</Text>
          <AssessmentList assessments={withCodes} />
        </>
      ) : (
        <Text as="p">{t('reset.noCodes')}</Text>
      )}
      <Heading level="h3" margin="small 0 xx-small">
        {t('reset.inTool')}
      </Heading>
      <List margin="0 0 small">
        <List.Item>{t('reset.quizzesCleared', { count: data.assessmentsCleared })}</List.Item>
        <List.Item>{t('reset.defaultsCleared')}</List.Item>
        <List.Item>{t('reset.authorizationsKept')}</List.Item>
      </List>
      <TextInput
        renderLabel={t('reset.typeId', { id: courseId })}
        value={typed}
        onChange={(_event, value) => onType(value)}
        autoComplete="off"
        messages={mismatch ? [{ type: 'error', text: t('reset.notTheId', { id: courseId }) }] : undefined}
      />
    </View>
  );
}
