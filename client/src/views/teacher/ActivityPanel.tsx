import { Alert, Heading, List, Spinner, Text, View } from '@instructure/ui';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { DefinitionList } from '../../components/DefinitionList';
import { i18next } from '../../i18n/i18n';
import { auditActionLabel, auditActorLabel, auditFieldsLabel, auditOutcomeLabel, formatTime } from '../../lib/audit-labels';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { Assessment, CourseScope } from './model';

/**
 * How often the panel asks again while the page is visible: often enough to watch students start on exam day, and
 * react-query pauses the polling while the tab is hidden.
 */
const POLL_MS = 4000;

type Counter = { count: number; lastAt: string | null };

function counterText({ count, lastAt }: Counter): string {
  const number = new Intl.NumberFormat(i18next.language).format(count);
  return lastAt === null ? number : i18next.t('teacher:activity.countSince', { number, time: formatTime(lastAt) });
}

/** One assessment's exam-day counters and recent changes (who, when, what, outcome), live while the page is open. */
export function ActivityPanel({ scope, assessment }: { scope: CourseScope; assessment: Assessment }) {
  const { t } = useTranslation(['teacher', 'common']);
  const trpc = useTRPC();
  const activity = useQuery({
    ...trpc.instructor.enforcement.activity.queryOptions({ courseId: scope.courseId, quizId: assessment.id }),
    refetchInterval: POLL_MS,
    refetchIntervalInBackground: false,
  });
  const headingId = `activity-heading-${assessment.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <View as="section" display="block" aria-labelledby={headingId} padding="small medium" margin="medium 0" borderWidth="small" borderRadius="medium" data-testid="activity-panel">
      <Heading level="h3" id={headingId} margin="0 0 small">
        {t('activity.heading')}
      </Heading>
      {activity.data === undefined ? (
        activity.isError ? (
          <Alert variant="error" variantScreenReaderLabel={t('common:variant.error')} hasShadow={false}>
            {t('activity.loadFailed', { reason: readServerError(activity.error).message })}
          </Alert>
        ) : (
          <Spinner renderTitle={t('activity.loading')} size="x-small" />
        )
      ) : (
        <>
          <Heading level="h4" margin="0 0 x-small">
            {t('activity.examDay')}
          </Heading>
          <DefinitionList
            label={t('activity.counts')}
            items={[
              { key: 'downloads', term: t('activity.downloads'), description: counterText(activity.data.counters.downloads) },
              { key: 'proofs', term: t('activity.proofs'), description: counterText(activity.data.counters.proofs) },
              { key: 'releases', term: t('activity.releases'), description: counterText(activity.data.counters.releases) },
              { key: 'exits', term: t('activity.exits'), description: counterText(activity.data.counters.exits) },
            ]}
          />
          <Heading level="h4" margin="small 0 x-small">
            {t('activity.recent')}
          </Heading>
          {activity.data.changes.length === 0 ? (
            <Text as="p" color="secondary">
              {t('activity.noChanges')}
            </Text>
          ) : (
            <List isUnstyled itemSpacing="x-small" aria-label={t('activity.recentList')}>
              {activity.data.changes.map((change) => {
                const fields = auditFieldsLabel(change.details);
                return (
                  <List.Item key={change.id}>
                    <Text weight="bold">{auditActionLabel(change.action)}</Text>
                    {change.outcome !== 'success' && <Text> · {auditOutcomeLabel(change.outcome)}</Text>}
                    <Text as="div" size="small" color="secondary">
                      {formatTime(change.occurredAt)} · {auditActorLabel(change.actor)}
                      {fields !== null && ` · ${fields}`}
                    </Text>
                  </List.Item>
                );
              })}
            </List>
          )}
        </>
      )}
    </View>
  );
}
