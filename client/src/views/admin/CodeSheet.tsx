import { Button, Checkbox, CheckboxGroup, Flex, Heading, IconPrinterLine, Text, TextArea, View } from '@instructure/ui';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { helpReasonSchema, HELP_REASON_MAX_LENGTH, type CodeSheet as Sheet } from '@exb/shared/exam-day-help.js';
import { useAnnouncer } from '../../components/Announcer';
import { StatusAlert } from '../../components/StatusAlert';
import { formatTime } from '../../lib/audit-labels';
import { readServerError, useTRPCClient } from '../../lib/trpc';
import type { AdminAssessment } from './model';

/**
 * The code sheet for an outage: the current access codes of the chosen enforced assessments of this course, printed
 * when the service or the network fails. A warning says what a printed code means; the reason is required and, with
 * the assessments, entered in the audit trail. The codes stay in this page's memory only, until hidden or left.
 */
export function CodeSheet({ courseId, courseName, assessments, onClose }: { courseId: string; courseName: string; assessments: readonly AdminAssessment[]; onClose: () => void }) {
  const { t } = useTranslation('admin');
  const client = useTRPCClient();
  const enforced = assessments.filter((assessment) => assessment.exbRequired && assessment.enabled && assessment.hasAccessCode);
  const [chosen, setChosen] = useState<string[]>(() => enforced.map((assessment) => assessment.id));
  const [reason, setReason] = useState('');
  const [invalid, setInvalid] = useState<{ reason?: string; chosen?: string }>({});
  const [sheet, setSheet] = useState<Sheet | null>(null);
  const [announcement, announce] = useAnnouncer();
  const sheetHeading = useRef<HTMLHeadingElement | null>(null);
  const print = useMutation({
    mutationFn: (input: { reason: string; assessmentIds: string[] }) =>
      client.admin.courses.codeSheet.mutate({ reason: input.reason, selections: [{ courseId, assessmentIds: input.assessmentIds }] }),
    onSuccess: (result) => {
      setSheet(result);
      announce(t('codeSheet.shown', { count: result.lines.length }));
    },
  });
  useEffect(() => {
    if (sheet !== null) sheetHeading.current?.focus();
  }, [sheet]);

  const submit = () => {
    if (print.isPending) return;
    const checked = helpReasonSchema.safeParse(reason);
    const problems = {
      ...(checked.success ? {} : { reason: reason.trim() === '' ? t('codeSheet.reasonMissing') : t('codeSheet.reasonTooLong', { max: HELP_REASON_MAX_LENGTH }) }),
      ...(chosen.length === 0 ? { chosen: t('codeSheet.chooseOne') } : {}),
    };
    setInvalid(problems);
    if (checked.success && chosen.length > 0) print.mutate({ reason: checked.data, assessmentIds: chosen });
  };

  return (
    <View as="section" display="block" margin="medium 0" padding="medium" borderWidth="small" borderRadius="medium" aria-labelledby="code-sheet-heading" data-testid="code-sheet">
      {announcement}
      <Flex justifyItems="space-between" alignItems="start" wrap="wrap" gap="small" margin="0 0 small">
        <Heading level="h3" id="code-sheet-heading">
          {t('codeSheet.heading')}
        </Heading>
        <Button onClick={onClose} size="small">
          {t('codeSheet.close')}
        </Button>
      </Flex>
      <StatusAlert variant="warning" margin="0 0 small">
        {t('codeSheet.warning')}
      </StatusAlert>
      {sheet === null ? (
        enforced.length === 0 ? (
          <Text as="p">{t('codeSheet.noneEnforced')}</Text>
        ) : (
          <form
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              submit();
            }}
          >
            <CheckboxGroup
              name="code-sheet-assessments"
              description={t('codeSheet.choose')}
              value={chosen}
              onChange={(value) => setChosen(value.map(String))}
              messages={invalid.chosen !== undefined ? [{ type: 'error', text: invalid.chosen }] : undefined}
            >
              {enforced.map((assessment) => (
                <Checkbox key={assessment.id} value={assessment.id} label={assessment.title.trim() === '' ? assessment.id : assessment.title} />
              ))}
            </CheckboxGroup>
            <View as="div" margin="small 0">
              <TextArea
                label={t('codeSheet.reasonLabel')}
                value={reason}
                onChange={(event) => setReason(event.target.value)}
                messages={invalid.reason !== undefined ? [{ type: 'error', text: invalid.reason }] : [{ type: 'hint', text: t('codeSheet.reasonHint', { max: HELP_REASON_MAX_LENGTH }) }]}
                height="4rem"
                required
              />
            </View>
            <Button type="submit" color="danger" interaction={print.isPending ? 'disabled' : 'enabled'}>
              {print.isPending ? t('codeSheet.showing') : t('codeSheet.show')}
            </Button>
            {print.isError && (
              <StatusAlert margin="small 0 0" live="assertive">
                {t('codeSheet.failed', { reason: readServerError(print.error).message })}
              </StatusAlert>
            )}
          </form>
        )
      ) : (
        <>
          <Flex gap="small" wrap="wrap" margin="0 0 small" as="div">
            <Button color="primary" renderIcon={<IconPrinterLine />} onClick={() => window.print()}>
              {t('codeSheet.print')}
            </Button>
            <Button
              onClick={() => {
                setSheet(null);
                announce(t('codeSheet.hidden'));
              }}
            >
              {t('codeSheet.hide')}
            </Button>
          </Flex>
          <div className="exb-code-sheet">
            <h4 ref={sheetHeading} tabIndex={-1} className="exb-code-sheet__title">
              {t('codeSheet.sheetTitle', { course: courseName })}
            </h4>
            <p>{t('codeSheet.generatedAt', { time: formatTime(sheet.generatedAt) })}</p>
            <table>
              <caption>{t('codeSheet.caption', { course: courseName })}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('codeSheet.assessment')}</th>
                  <th scope="col">{t('codeSheet.code')}</th>
                </tr>
              </thead>
              <tbody>
                {sheet.lines.map((line) => (
                  <tr key={`${line.courseId}/${line.assessmentId}`}>
                    <th scope="row">{line.title}</th>
                    <td>{line.accessCode === null ? t('codeSheet.noCode') : <code className="exb-code-sheet__code">{line.accessCode}</code>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="exb-code-sheet__note">{t('codeSheet.destroy')}</p>
          </div>
        </>
      )}
    </View>
  );
}
