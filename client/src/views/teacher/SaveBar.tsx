import { Alert, Button, Flex, Text, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { getLiveRegion } from '../../lib/live-region';
import type { SaveSubject } from './save-outcome';

/**
 * What the last save of an editor form did, above its buttons: the refusal, when it is shown next to a field (the
 * line here tells those who do not see that field), or the server's confirmation.
 */
export function SaveOutcome({
  subject,
  refusal,
  saved,
  onDismiss,
}: {
  /** What was not saved. */
  subject: SaveSubject;
  refusal: string | null;
  saved: string | null;
  /** Makes the confirmation dismissible. */
  onDismiss?: () => void;
}) {
  const { t } = useTranslation(['teacher', 'common']);
  return (
    <>
      {refusal !== null && (
        <Text as="p" color="danger">
          {t(`save.refused.${subject}`, { reason: refusal })}
        </Text>
      )}
      {saved !== null && (
        <Alert
          variant="success"
          variantScreenReaderLabel={t('common:variant.success')}
          hasShadow={false}
          margin="0 0 small"
          renderCloseButtonLabel={onDismiss !== undefined ? t('action.dismiss') : undefined}
          onDismiss={onDismiss}
          liveRegion={getLiveRegion}
        >
          {saved}
        </Alert>
      )}
    </>
  );
}

/**
 * The bottom of an editor form: the submit button, what goes beside it, and at the far end (below in a narrow frame)
 * what acts on the whole editor.
 */
export function SaveBar({ label, saving, children, end }: { label: string; saving: boolean; children?: ReactNode; end?: ReactNode }) {
  const { t } = useTranslation('teacher');
  return (
    <View as="div" padding="small 0" borderWidth="small 0 0 0">
      <Flex gap="small" wrap="wrap" justifyItems="space-between" alignItems="center">
        <Flex gap="small" wrap="wrap" alignItems="center">
          {/* Stays enabled while saving, so the focus stays on it; a second press is ignored. */}
          <Button type="submit" color="primary">
            {saving ? t('save.saving') : label}
          </Button>
          {children}
        </Flex>
        {end}
      </Flex>
    </View>
  );
}
