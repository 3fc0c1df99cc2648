import { Alert, Heading, List, Text, View } from '@instructure/ui';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../lib/audit-labels';

/** One finding of the pre-exam sweep, as `instructor.preExamSweep.alerts` and the administrator's routes give it. */
export interface DriftAlert {
  courseId: string;
  contentId: string;
  title: string | null;
  startsAt: string;
  sweptAt: string;
  stage: 'hour' | 'ten-minutes';
  found: 'verified' | 'missing' | 'stale' | 'unverified';
  repaired: boolean;
  outcome: 'in-place' | 'repaired' | 'alerted' | 'repair-failed' | 'unchecked' | 'pending';
}

/**
 * What the pre-exam sweep found before a start: which assessment, what was wrong with its LMS access code, and whether
 * the service put its code back. The teacher's view and the administrator's dashboard both list them.
 */
export function DriftAlertList({ alerts, withCourse = false }: { alerts: readonly DriftAlert[]; withCourse?: boolean }) {
  const { t } = useTranslation('teacher');
  return (
    <List margin="0" isUnstyled={false}>
      {alerts.map((alert) => (
        <List.Item key={`${alert.courseId}|${alert.contentId}|${alert.startsAt}`}>
          <Text weight="bold">{alert.title ?? alert.contentId}</Text>
          {withCourse && <Text> ({t('preExam.course', { courseId: alert.courseId })})</Text>}
          <Text>
            {' '}
            {t('preExam.startsAt', { time: formatTime(alert.startsAt) })} {t(`preExam.found.${alert.found === 'stale' ? 'stale' : 'missing'}`)}{' '}
            {t(`preExam.outcome.${alert.outcome === 'repaired' ? 'repaired' : alert.outcome === 'repair-failed' ? 'repairFailed' : 'alerted'}`)}
          </Text>
          <Text as="div" size="small" color="secondary">
            {t('preExam.sweptAt', { time: formatTime(alert.sweptAt) })}
          </Text>
        </List.Item>
      ))}
    </List>
  );
}

/**
 * The sweep's alerts as a page's panel: a heading and the list, a warning while anything is unrepaired. Nothing while
 * there is none.
 */
export function DriftAlertPanel({ alerts, headingId, withCourse = false }: { alerts: readonly DriftAlert[]; headingId: string; withCourse?: boolean }) {
  const { t } = useTranslation('teacher');
  if (alerts.length === 0) return null;
  return (
    <View as="section" display="block" margin="small 0 0" aria-labelledby={headingId}>
      <Alert variant={alerts.every((alert) => alert.repaired) ? 'info' : 'warning'} margin="0">
        <Heading level="h2" id={headingId} margin="0 0 x-small">
          {t('preExam.heading')}
        </Heading>
        <DriftAlertList alerts={alerts} withCourse={withCourse} />
      </Alert>
    </View>
  );
}
