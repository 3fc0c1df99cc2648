import { Alert, Button, Checkbox, Heading, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { DriftAlertList } from '../../components/DriftAlertList';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { AdminAssessment } from './model';

/** As often as the sweep runs. */
const ALERT_POLL_MS = 60_000;

/** The dashboard's pre-exam drift alerts over every connected course; nothing while there is none. */
export function AdminPreExamAlerts() {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const alerts = useQuery({ ...trpc.admin.preExamAlerts.queryOptions(), refetchInterval: ALERT_POLL_MS });
  const list = alerts.data?.alerts ?? [];
  if (list.length === 0) return null;
  return (
    <View as="section" display="block" margin="small 0 0" aria-labelledby="admin-pre-exam-heading">
      <Alert variant={list.every((alert) => alert.repaired) ? 'info' : 'warning'} margin="0">
        <Heading level="h2" id="admin-pre-exam-heading" margin="0 0 x-small">
          {t('preExam.heading')}
        </Heading>
        <DriftAlertList alerts={list} withCourse />
      </Alert>
    </View>
  );
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

/** "Clear the code" of a quiz whose LMS access code this service does not manage, with the administrator's grant. */
export function AdminClearCode({ courseId, assessment }: { courseId: string; assessment: AdminAssessment }) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [announcement, announce] = useAnnouncer();
  const clear = useMutation(
    trpc.admin.assessments.clearLmsCode.mutationOptions({
      onSuccess: () => {
        announce(t('action.titled', { title: assessment.title, message: t('unmanagedCode.cleared') }));
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
      onError: (error) => announce(t('action.titled', { title: assessment.title, message: readServerError(error).message }), 'assertive'),
    }),
  );
  if (!assessment.unmanagedAccessCode) return announcement;
  return (
    <View as="div" margin="0 0 medium">
      {announcement}
      <Text as="p" size="small">
        {t('unmanagedCode.explanation')}
      </Text>
      <Button size="small" interaction={clear.isPending ? 'disabled' : 'enabled'} onClick={() => clear.mutate({ courseId, assessmentId: assessment.id })}>
        {t('unmanagedCode.clear')}
      </Button>
      {clear.error !== null && (
        <Text as="p" size="small" color="danger">
          {readServerError(clear.error).message}
        </Text>
      )}
    </View>
  );
}
