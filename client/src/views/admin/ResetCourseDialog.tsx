import { Button, CloseButton, Heading, Modal, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useTRPC } from '../../lib/trpc';
import { ResetOutcomePanel } from './ResetOutcomePanel';
import { ResetPreviewPanel } from './ResetPreviewPanel';
import { failedOutcome, type ResetOutcome } from './reset-outcome';

/**
 * The course reset: what it will remove (the server's read-only preview), the course id typed to confirm, a progress
 * indicator while it runs (the dialog cannot be closed then), and how it ended.
 */
interface ResetCourseDialogProps {
  courseId: string;
  courseName: string;
  onClose: () => void;
  /** Runs when the reset may have changed the course. */
  onChanged: () => void;
}

export function ResetCourseDialog({ courseId, courseName, onClose, onChanged }: ResetCourseDialogProps) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState('');
  const [outcome, setOutcome] = useState<ResetOutcome | null>(null);
  const preview = useQuery({
    ...trpc.admin.courses.resetPreview.queryOptions({ courseId }),
    // What the LMS holds now, never a cached answer, and no second try of a refusal.
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
  const reset = useMutation(
    trpc.admin.courses.reset.mutationOptions({
      onSuccess: (result) => {
        setOutcome({ kind: 'done', result });
        onChanged();
      },
      onError: (error) => {
        const failed = failedOutcome(error);
        setOutcome(failed);
        if (failed.kind === 'verify') onChanged();
      },
      // Whatever happened, the course as shown is out of date.
      onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() }),
    }),
  );
  const confirmed = typed.trim() === courseId && preview.data !== undefined;
  const close = () => {
    if (!reset.isPending) onClose();
  };

  return (
    <Modal open onDismiss={close} size="medium" label={t('reset.dialogTitle', { course: courseName })} shouldCloseOnDocumentClick={false}>
      <Modal.Header>
        {!reset.isPending && <CloseButton placement="end" offset="small" onClick={close} screenReaderLabel={t('reset.closeDialog')} />}
        <Heading level="h2">{t('reset.dialogTitle', { course: courseName })}</Heading>
      </Modal.Header>
      <Modal.Body>
        {outcome !== null ? (
          <ResetOutcomePanel courseId={courseId} courseName={courseName} outcome={outcome} />
        ) : reset.isPending ? (
          <View as="div" textAlign="center" padding="medium" role="status">
            <Spinner renderTitle={t('reset.running')} size="medium" />
            <Text as="p">{t('reset.runningHint')}</Text>
          </View>
        ) : (
          <ResetPreviewPanel courseId={courseId} preview={preview} typed={typed} onType={setTyped} />
        )}
      </Modal.Body>
      <Modal.Footer>
        {outcome !== null ? (
          <Button color="primary" onClick={close}>
            {outcome.kind === 'done' ? t('reset.done') : t('close')}
          </Button>
        ) : (
          <>
            <Button onClick={close} interaction={reset.isPending ? 'disabled' : 'enabled'} margin="0 x-small 0 0">
              {t('cancel')}
            </Button>
            <Button
              color="danger"
              interaction={confirmed && !reset.isPending ? 'enabled' : 'disabled'}
              onClick={() => {
                if (confirmed && !reset.isPending) reset.mutate({ courseId, confirmation: typed.trim() });
              }}
            >
              {reset.isPending ? t('reset.resetting') : t('reset.confirm')}
            </Button>
          </>
        )}
      </Modal.Footer>
    </Modal>
  );
}
