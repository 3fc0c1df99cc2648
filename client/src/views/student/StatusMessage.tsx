import { Alert, Text, type AlertProps } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { getLiveRegion } from '../../lib/live-region';

export type StatusVariant = 'info' | 'success' | 'warning' | 'error';

/** An outcome the student must notice: shown in place and read out, errors at once, everything else when idle. */
export function StatusMessage({ variant, children, margin = 'small 0' }: { variant: StatusVariant; children: ReactNode; margin?: AlertProps['margin'] }) {
  const { t } = useTranslation();
  return (
    <Alert
      variant={variant}
      variantScreenReaderLabel={t(`variant.${variant}`)}
      hasShadow={false}
      margin={margin}
      liveRegion={getLiveRegion}
      liveRegionPoliteness={variant === 'error' ? 'assertive' : 'polite'}
    >
      <Text>{children}</Text>
    </Alert>
  );
}
