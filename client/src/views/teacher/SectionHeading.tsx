import { Heading } from '@instructure/ui';
import type { ReactNode } from 'react';
import { FocusTarget } from '../../components/FocusTarget';

/**
 * A section's heading that can take focus, so a refusal about the section as a whole (not one field) can move the
 * keyboard and screen-reader user to where the message is.
 */
export function SectionHeading({
  id,
  register,
  level = 'h3',
  children,
}: {
  id: string;
  register: (element: HTMLElement | null) => void;
  level?: 'h3' | 'h4';
  children: ReactNode;
}) {
  return (
    <FocusTarget focusRef={register}>
      <Heading level={level} id={id} margin="0 0 x-small">
        {children}
      </Heading>
    </FocusTarget>
  );
}
