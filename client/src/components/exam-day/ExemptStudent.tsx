import { Button, CloseButton, Flex, Heading, Modal, Text, TextArea, View } from '@instructure/ui';
import { useMutation } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EXEMPTION_TTL_SECONDS, helpReasonSchema, HELP_REASON_MAX_LENGTH, type ExemptionGranted } from '@exb/shared/exam-day-help.js';
import { formatTime } from '../../lib/audit-labels';
import { readServerError, useTRPCClient } from '../../lib/trpc';
import { useAnnouncer } from '../Announcer';
import { StatusAlert } from '../StatusAlert';

/**
 * Where the exemption is granted: the teacher's own course (instructor procedures) or a connected course of the
 * administrator's account (administrator procedures, whose client adds the page's action token to every mutation).
 */
export type ExemptionScope = { readonly kind: 'teacher'; readonly courseId: string } | { readonly kind: 'admin'; readonly courseId: string };

export interface ExemptStudentProps {
  readonly scope: ExemptionScope;
  readonly assessmentId: string;
  readonly assessmentTitle: string;
  /** The student's numeric LMS user id; `null` while none is entered (the button is then disabled). */
  readonly lmsUserId: string | null;
  /** How the row names the student; their LMS user id when the LMS gave no name. */
  readonly studentName?: string | null;
  /** Runs after a grant, for instance to refresh a board. */
  readonly onGranted?: (granted: ExemptionGranted) => void;
}

/**
 * Exam day's "Exempt from the exam browser" for one student, as a row action: a button that opens a dialog saying
 * what the exemption means and asking for the required reason, then grants it. The code is never shown here; the
 * student sees it once on their own page.
 */
export function ExemptStudent({ scope, assessmentId, assessmentTitle, lmsUserId, studentName, onGranted }: ExemptStudentProps) {
  const { t } = useTranslation(['teacher', 'common']);
  const client = useTRPCClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [granted, setGranted] = useState<ExemptionGranted | null>(null);
  const [announcement, announce] = useAnnouncer();
  const trigger = useRef<HTMLElement | null>(null);
  const name = studentName?.trim() ? studentName : t('examDayHelp.studentById', { id: lmsUserId ?? '' });

  const grant = useMutation({
    mutationFn: (input: { lmsUserId: string; reason: string }): Promise<ExemptionGranted> =>
      scope.kind === 'teacher'
        ? client.instructor.assessments.exemptStudent.mutate({ courseId: scope.courseId, quizId: assessmentId, ...input })
        : client.admin.courses.exemptStudent.mutate({ courseId: scope.courseId, assessmentId, ...input }),
    onSuccess: (result) => {
      setGranted(result);
      setOpen(false);
      setReason('');
      announce(t('examDayHelp.exempt.done', { name, time: formatTime(result.expiresAt) }));
      onGranted?.(result);
      window.setTimeout(() => trigger.current?.focus(), 0);
    },
  });

  const close = () => {
    if (grant.isPending) return;
    setOpen(false);
    window.setTimeout(() => trigger.current?.focus(), 0);
  };
  const submit = () => {
    if (grant.isPending || lmsUserId === null) return;
    const checked = helpReasonSchema.safeParse(reason);
    if (!checked.success) {
      setInvalid(reason.trim() === '' ? t('examDayHelp.exempt.reasonMissing') : t('examDayHelp.exempt.reasonTooLong', { max: HELP_REASON_MAX_LENGTH }));
      return;
    }
    setInvalid(null);
    grant.mutate({ lmsUserId, reason: checked.data });
  };
  const title = t('examDayHelp.exempt.dialogTitle', { name });

  return (
    <View as="div" data-testid="exempt-student">
      {announcement}
      <Button
        elementRef={(element) => void (trigger.current = element as HTMLElement | null)}
        interaction={lmsUserId === null ? 'disabled' : 'enabled'}
        onClick={() => {
          grant.reset();
          setInvalid(null);
          setOpen(true);
        }}
        aria-label={lmsUserId === null ? undefined : t('examDayHelp.exempt.buttonFor', { name })}
      >
        {t('examDayHelp.exempt.button')}
      </Button>
      {granted !== null && !open && (
        <StatusAlert variant="success" margin="x-small 0 0" dismissLabel={t('examDayHelp.exempt.dismiss')} onDismiss={() => setGranted(null)}>
          {t('examDayHelp.exempt.done', { name, time: formatTime(granted.expiresAt) })}
        </StatusAlert>
      )}
      <Modal open={open} onDismiss={close} size="small" label={title} shouldCloseOnDocumentClick={false}>
        <Modal.Header>
          <CloseButton placement="end" offset="small" onClick={close} screenReaderLabel={t('examDayHelp.exempt.close')} />
          <Heading level="h2">{title}</Heading>
        </Modal.Header>
        <Modal.Body>
          <form
            id="exempt-student-form"
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              submit();
            }}
          >
            <Text as="p">{t('examDayHelp.exempt.explain', { name, assessment: assessmentTitle, minutes: EXEMPTION_TTL_SECONDS / 60 })}</Text>
            <Text as="p">{t('examDayHelp.exempt.auditNote')}</Text>
            <TextArea
              label={t('examDayHelp.exempt.reasonLabel')}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              messages={invalid !== null ? [{ type: 'error', text: invalid }] : [{ type: 'hint', text: t('examDayHelp.exempt.reasonHint', { max: HELP_REASON_MAX_LENGTH }) }]}
              maxHeight="10rem"
              height="4rem"
              required
            />
            {grant.isError && (
              <StatusAlert margin="small 0 0" live="assertive">
                {t('examDayHelp.exempt.failed', { reason: readServerError(grant.error).message })}
              </StatusAlert>
            )}
          </form>
        </Modal.Body>
        <Modal.Footer>
          <Flex gap="small" wrap="wrap" justifyItems="end">
            <Button onClick={close} interaction={grant.isPending ? 'disabled' : 'enabled'}>
              {t('examDayHelp.exempt.cancel')}
            </Button>
            <Button type="submit" form="exempt-student-form" color="primary" interaction={grant.isPending ? 'disabled' : 'enabled'}>
              {grant.isPending ? t('examDayHelp.exempt.exempting') : t('examDayHelp.exempt.confirm')}
            </Button>
          </Flex>
        </Modal.Footer>
      </Modal>
    </View>
  );
}
