import type { ReactNode } from 'react';

/**
 * A place script moves the focus to (the top of a screen that replaced the control just used, a section a refusal is
 * about), so keyboard and screen-reader users continue there. It is not a control and Tab never lands on it, so it has
 * no focus ring, which would make a heading look like a text field.
 */
export function FocusTarget({ focusRef, children }: { focusRef: (element: HTMLElement | null) => void; children: ReactNode }) {
  return (
    <div ref={focusRef} tabIndex={-1} style={{ outline: 'none' }}>
      {children}
    </div>
  );
}
