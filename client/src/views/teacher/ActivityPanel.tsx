import { Alert, Heading, List, Spinner, Text, View } from '@instructure/ui';
import { useQuery } from '@tanstack/react-query';
import { DefinitionList } from '../../components/DefinitionList';
import { auditActionLabel, auditActorLabel, auditFieldsLabel, AUDIT_OUTCOME_LABEL, formatTime } from '../../lib/audit-labels';
import { readServerError, useTRPC } from '../../lib/trpc';
import type { Assessment, CourseScope } from './model';

/**
 * How often the panel asks again while the page is visible: often enough to watch students start on exam day, and
 * react-query pauses the polling while the tab is hidden.
 */
const POLL_MS = 4000;

type Counter = { count: number; lastAt: string | null };

function counterText({ count, lastAt }: Counter): string {
  return lastAt === null ? String(count) : `${count} (last ${formatTime(lastAt)})`;
}

/** One assessment's exam-day counters and recent changes (who, when, what, outcome), live while the page is open. */
export function ActivityPanel({ scope, assessment }: { scope: CourseScope; assessment: Assessment }) {
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
        Activity
      </Heading>
      {activity.data === undefined ? (
        activity.isError ? (
          <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
            The activity could not be loaded: {readServerError(activity.error).message}
          </Alert>
        ) : (
          <Spinner renderTitle="Loading the activity" size="x-small" />
        )
      ) : (
        <>
          <Heading level="h4" margin="0 0 x-small">
            Exam day
          </Heading>
          <DefinitionList
            label="Exam-day counts"
            items={[
              { term: 'Configurations downloaded', description: counterText(activity.data.counters.downloads) },
              { term: 'Configurations proven', description: counterText(activity.data.counters.proofs) },
              { term: 'Access codes released', description: counterText(activity.data.counters.releases) },
              { term: 'Exits', description: counterText(activity.data.counters.exits) },
            ]}
          />
          <Heading level="h4" margin="small 0 x-small">
            Recent changes
          </Heading>
          {activity.data.changes.length === 0 ? (
            <Text as="p" color="secondary">
              No changes recorded yet.
            </Text>
          ) : (
            <List isUnstyled itemSpacing="x-small" aria-label="Recent changes, newest first">
              {activity.data.changes.map((change) => {
                const fields = auditFieldsLabel(change.details);
                return (
                  <List.Item key={change.id}>
                    <Text weight="bold">{auditActionLabel(change.action)}</Text>
                    {change.outcome !== 'success' && <Text> · {AUDIT_OUTCOME_LABEL[change.outcome] ?? change.outcome}</Text>}
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
