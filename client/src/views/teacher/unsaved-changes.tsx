import { Button, Heading, Modal, Text } from '@instructure/ui';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * While `dirty`, the browser asks before the page goes away (a reload, the LMS link, closing the tab): the tool runs
 * in a frame of the LMS, so a click elsewhere in the LMS would otherwise drop what the teacher typed without a word.
 */
export function useWarnBeforeUnload(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return undefined;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when a return value is set; its text is never shown.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
}

/**
 * Leaving a form inside the tool: with unsaved changes, the teacher is asked first, and staying is the default answer.
 * `what` names what would be lost ("the exam settings of Midterm exam"). Render `dialog` somewhere in the form's tree.
 */
export function useLeaveGuard(dirty: boolean, what: string): { guard: (leave: () => void) => void; dialog: ReactNode } {
  const [pending, setPending] = useState<(() => void) | null>(null);
  // The control that asked to leave gets the focus back when the teacher stays.
  const opener = useRef<HTMLElement | null>(null);
  const guard = (leave: () => void) => {
    if (!dirty) {
      leave();
      return;
    }
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setPending(() => leave);
  };
  const stay = () => {
    setPending(null);
    window.setTimeout(() => opener.current?.focus(), 0);
  };
  const dialog =
    pending === null ? null : (
      <LeaveDialog
        what={what}
        onStay={stay}
        onLeave={() => {
          setPending(null);
          pending();
        }}
      />
    );
  return { guard, dialog };
}

function LeaveDialog({ what, onStay, onLeave }: { what: string; onStay: () => void; onLeave: () => void }) {
  const { t } = useTranslation('teacher');
  const stayButton = useRef<HTMLElement | null>(null);
  return (
    <Modal
      open
      onDismiss={onStay}
      size="small"
      label={t('leave.title')}
      shouldCloseOnDocumentClick={false}
      // Staying is the safe answer, so it has the focus when the question appears.
      defaultFocusElement={() => stayButton.current}
    >
      <Modal.Header>
        <Heading level="h2">{t('leave.title')}</Heading>
      </Modal.Header>
      <Modal.Body>
        <Text as="p">{t('leave.text', { what })}</Text>
      </Modal.Body>
      <Modal.Footer>
        <Button onClick={onStay} margin="0 x-small 0 0" color="primary" elementRef={(element) => void (stayButton.current = element as HTMLElement | null)}>
          {t('leave.stay')}
        </Button>
        <Button color="danger" onClick={onLeave}>
          {t('leave.leave')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
