import { Button, CloseButton, Flex, Heading, Modal, Text, TextArea, View } from '@instructure/ui';
import { useMutation } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { helpReasonSchema, HELP_REASON_MAX_LENGTH } from '@exb/shared/exam-day-help.js';
import { readServerError } from '../../lib/trpc';
import { useAnnouncer } from '../Announcer';
import { StatusAlert } from '../StatusAlert';
import { useBoardOutcome } from './board-outcome';

/** Where an action on one student runs: the teacher's own course, or a connected course of the administrator's account. */
export type StudentActionScope = { readonly kind: 'teacher'; readonly courseId: string } | { readonly kind: 'admin'; readonly courseId: string };

/** The words of one action, in the `teacher` namespace under `examDayHelp.<key>`. */
export type StudentActionKey = 'exempt' | 'readmit';
type Word = 'button' | 'buttonFor' | 'dialogTitle' | 'auditNote' | 'reasonLabel' | 'reasonHint' | 'reasonMissing' | 'reasonTooLong' | 'confirm' | 'pending' | 'cancel' | 'close' | 'dismiss' | 'failed';

export interface StudentActionDialogProps<T> {
  /** Which words to use (`examDayHelp.exempt.*` or `examDayHelp.readmit.*`). */
  readonly action: StudentActionKey;
  readonly testId: string;
  /** The student's numeric LMS user id; `null` while none is entered (the button is then disabled). */
  readonly lmsUserId: string | null;
  /** How the row names the student; their LMS user id when the LMS gave no name. */
  readonly studentName?: string | null | undefined;
  /** What the dialog explains above the reason, besides the audit note. */
  readonly explain: (name: string) => string;
  /** Runs the action with the checked reason. */
  readonly run: (lmsUserId: string, reason: string) => Promise<T>;
  /** What is announced and shown once the action succeeded. */
  readonly done: (name: string, result: T) => string;
  /** Runs after a success, for instance to refresh a board. */
  readonly onDone?: ((result: T) => void) | undefined;
}

/**
 * An exam-day action on one named student: a button that opens a dialog saying what the action does and asking for
 * the required reason (the rule the server applies), then runs it, announces the outcome and returns the focus to
 * the button. Inside a board the outcome goes to the board (`board-outcome.ts`).
 */
export function StudentActionDialog<T>({ action, testId, lmsUserId, studentName, explain, run, done, onDone }: StudentActionDialogProps<T>) {
  const { t } = useTranslation(['teacher', 'common']);
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [announcement, announce] = useAnnouncer();
  const board = useBoardOutcome();
  const trigger = useRef<HTMLElement | null>(null);
  const formId = `${testId}-form-${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  const words = (key: Word, values?: Record<string, unknown>) => t(`examDayHelp.${action}.${key}` as const, values ?? {});
  const name = studentName?.trim() ? studentName : t('examDayHelp.studentById', { id: lmsUserId ?? '' });

  const mutation = useMutation({
    mutationFn: (input: { lmsUserId: string; reason: string }) => run(input.lmsUserId, input.reason),
    onSuccess: (result, input) => {
      const text = done(name, result);
      setOpen(false);
      setReason('');
      // In a board, the board shows and announces it: this row may leave the table's filter right after.
      if (board !== null) board.report(input.lmsUserId, text);
      else {
        setOutcome(text);
        announce(text);
      }
      onDone?.(result);
      window.setTimeout(() => trigger.current?.focus(), 0);
    },
  });

  const close = () => {
    if (mutation.isPending) return;
    setOpen(false);
    window.setTimeout(() => trigger.current?.focus(), 0);
  };
  const submit = () => {
    if (mutation.isPending || lmsUserId === null) return;
    const checked = helpReasonSchema.safeParse(reason);
    if (!checked.success) {
      setInvalid(reason.trim() === '' ? words('reasonMissing') : words('reasonTooLong', { max: HELP_REASON_MAX_LENGTH }));
      return;
    }
    setInvalid(null);
    mutation.mutate({ lmsUserId, reason: checked.data });
  };
  const title = words('dialogTitle', { name });

  return (
    <View as="div" data-testid={testId}>
      {announcement}
      <Button
        elementRef={(element) => void (trigger.current = element as HTMLElement | null)}
        interaction={lmsUserId === null ? 'disabled' : 'enabled'}
        onClick={() => {
          mutation.reset();
          setInvalid(null);
          if (board !== null && lmsUserId !== null) board.keep(lmsUserId);
          setOpen(true);
        }}
        aria-label={lmsUserId === null ? undefined : words('buttonFor', { name })}
      >
        {words('button')}
      </Button>
      {outcome !== null && !open && (
        <StatusAlert variant="success" margin="x-small 0 0" dismissLabel={words('dismiss')} onDismiss={() => setOutcome(null)}>
          {outcome}
        </StatusAlert>
      )}
      <Modal open={open} onDismiss={close} size="small" label={title} shouldCloseOnDocumentClick={false}>
        <Modal.Header>
          <CloseButton placement="end" offset="small" onClick={close} screenReaderLabel={words('close')} />
          <Heading level="h2">{title}</Heading>
        </Modal.Header>
        <Modal.Body>
          <form
            id={formId}
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              submit();
            }}
          >
            <Text as="p">{explain(name)}</Text>
            <Text as="p">{words('auditNote')}</Text>
            <TextArea
              label={words('reasonLabel')}
              value={reason}
              onChange={(event) => {
                setReason(event.target.value);
                // The refusal answered the reason as it was; a changed reason is checked again on submit.
                setInvalid(null);
              }}
              messages={invalid !== null ? [{ type: 'error', text: invalid }] : [{ type: 'hint', text: words('reasonHint', { max: HELP_REASON_MAX_LENGTH }) }]}
              maxHeight="10rem"
              height="4rem"
              required
            />
            {mutation.isError && (
              <StatusAlert margin="small 0 0" live="assertive">
                {words('failed', { reason: readServerError(mutation.error).message })}
              </StatusAlert>
            )}
          </form>
        </Modal.Body>
        <Modal.Footer>
          <Flex gap="small" wrap="wrap" justifyItems="end">
            <Button onClick={close} interaction={mutation.isPending ? 'disabled' : 'enabled'}>
              {words('cancel')}
            </Button>
            <Button type="submit" form={formId} color="primary" interaction={mutation.isPending ? 'disabled' : 'enabled'}>
              {mutation.isPending ? words('pending') : words('confirm')}
            </Button>
          </Flex>
        </Modal.Footer>
      </Modal>
    </View>
  );
}
