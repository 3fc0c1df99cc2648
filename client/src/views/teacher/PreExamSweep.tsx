import { Checkbox, Heading, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import { DriftAlertPanel } from '../../components/DriftAlertList';
import { useConnection } from './connection';

/** How often the teacher view asks for new findings: the sweep itself runs once a minute. */
const ALERT_POLL_MS = 60_000;

/**
 * The pre-exam sweep's drift alerts for the course: an assessment starting within the hour whose LMS access code was
 * missing or replaced, and whether the service put it back. Nothing is shown while there is none.
 */
export function PreExamAlerts() {
  const trpc = useTRPC();
  const alerts = useQuery({ ...trpc.instructor.preExamSweep.alerts.queryOptions(), refetchInterval: ALERT_POLL_MS });
  return <DriftAlertPanel alerts={alerts.data?.alerts ?? []} headingId="pre-exam-alerts-heading" />;
}

/**
 * The course's choice to have drift repaired automatically before a start. Saved at once (not with the defaults'
 * form): it changes no exam-browser setting.
 */
export function AutoRepairToggle() {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useConnection();
  const [announcement, announce] = useAnnouncer();
  const option = useQuery(trpc.instructor.preExamSweep.option.queryOptions());
  const save = useMutation(
    trpc.instructor.preExamSweep.setOption.mutationOptions({
      onSuccess: (result) => {
        queryClient.setQueryData(trpc.instructor.preExamSweep.option.queryKey(), { autoRepairBeforeStart: result.autoRepairBeforeStart });
        announce(t(result.autoRepairBeforeStart ? 'preExam.autoRepairOn' : 'preExam.autoRepairOff'));
      },
      onError: (error) => announce(readServerError(error).message, 'assertive'),
    }),
  );
  const checked = option.data?.autoRepairBeforeStart ?? false;
  return (
    <View as="section" display="block" margin="large 0" aria-labelledby="defaults-sweep-heading">
      {announcement}
      <Heading level="h3" id="defaults-sweep-heading" margin="0 0 x-small">
        {t('preExam.optionHeading')}
      </Heading>
      <Checkbox
        label={t('preExam.autoRepair')}
        checked={checked}
        disabled={option.data === undefined || save.isPending || connection.connected === false}
        onChange={(event) => save.mutate({ autoRepairBeforeStart: event.target.checked })}
        messages={[{ type: 'hint', text: t('preExam.autoRepairHint') }]}
      />
      {save.error !== null && (
        <Text as="p" size="small" color="danger">
          {readServerError(save.error).message}
        </Text>
      )}
    </View>
  );
}

