import { Text } from '@instructure/ui';
import type { ReactNode } from 'react';
import { StatusAlert, type StatusVariant } from '../../components/StatusAlert';

export type { StatusVariant };

/** An outcome the student must notice: shown in place and read out, errors at once, everything else when idle. */
export function StatusMessage({ variant, children, margin = 'small 0' }: { variant: StatusVariant; children: ReactNode; margin?: string }) {
  return (
    <StatusAlert variant={variant} margin={margin} live={variant === 'error' ? 'assertive' : 'polite'}>
      <Text>{children}</Text>
    </StatusAlert>
  );
}
