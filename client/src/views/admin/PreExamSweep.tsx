import { Checkbox, Heading, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { DriftAlertList, DriftAlertPanel } from '../../components/DriftAlertList';
import { readServerError, useTRPC } from '../../lib/trpc';

/** As often as the sweep runs. */
const ALERT_POLL_MS = 60_000;

/** The dashboard's pre-exam drift alerts over every connected course; nothing while there is none. */
export function AdminPreExamAlerts() {
  const trpc = useTRPC();
  const alerts = useQuery({ ...trpc.admin.preExamAlerts.queryOptions(), refetchInterval: ALERT_POLL_MS });
  return <DriftAlertPanel alerts={alerts.data?.alerts ?? []} headingId="admin-pre-exam-heading" withCourse />;
}

/** One course's opt-in to automatic repairs before a start, and what the sweep found there. */
export function AdminCourseSweep({ courseId }: { courseId: string }) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [announcement, announce] = useAnnouncer();
  const sweep = useQuery({ ...trpc.admin.courses.preExamSweep.queryOptions({ courseId }), refetchInterval: ALERT_POLL_MS });
  const save = useMutation(
    trpc.admin.courses.setAutoRepair.mutationOptions({
      onSuccess: (result) => {
        announce(t(result.autoRepairBeforeStart ? 'preExam.autoRepairOn' : 'preExam.autoRepairOff'));
        void queryClient.invalidateQueries({ queryKey: trpc.admin.courses.preExamSweep.queryKey({ courseId }) });
      },
      onError: (error) => announce(readServerError(error).message, 'assertive'),
    }),
  );
  return (
    <View as="section" display="block" margin="0 0 medium" aria-labelledby="admin-course-sweep-heading">
      {announcement}
      <Heading level="h3" id="admin-course-sweep-heading" margin="0 0 x-small">
        {t('preExam.optionHeading')}
      </Heading>
      <Checkbox
        label={t('preExam.autoRepair')}
        checked={sweep.data?.autoRepairBeforeStart ?? false}
        disabled={sweep.data === undefined || save.isPending}
        onChange={(event) => save.mutate({ courseId, autoRepairBeforeStart: event.target.checked })}
        messages={[{ type: 'hint', text: t('preExam.autoRepairHint') }]}
      />
      {(sweep.data?.alerts.length ?? 0) > 0 && (
        <View as="div" margin="small 0 0">
          <DriftAlertList alerts={sweep.data!.alerts} />
        </View>
      )}
    </View>
  );
}
