import { Alert } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { getLiveRegion } from '../lib/live-region';

export type StatusVariant = 'info' | 'success' | 'warning' | 'error';

export interface StatusAlertProps {
  variant?: StatusVariant;
  margin?: string;
  /** Announce it when it appears: an outcome of something just done. */
  live?: 'polite' | 'assertive';
  /** With a close button of this label. */
  dismissLabel?: string;
  onDismiss?: () => void;
  children: ReactNode;
}

/** An inline alert, its kind said to screen readers in the page's language. */
export function StatusAlert({ variant = 'error', margin, live, dismissLabel, onDismiss, children }: StatusAlertProps) {
  const { t } = useTranslation();
  return (
    <Alert
      variant={variant}
      variantScreenReaderLabel={t(`variant.${variant}`)}
      hasShadow={false}
      margin={margin}
      liveRegion={live !== undefined ? getLiveRegion : undefined}
      liveRegionPoliteness={live}
      renderCloseButtonLabel={dismissLabel}
      onDismiss={onDismiss}
    >
      {children}
    </Alert>
  );
}
