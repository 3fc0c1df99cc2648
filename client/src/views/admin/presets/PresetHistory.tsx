import { Alert, Heading, List, Spinner, Text, View } from '@instructure/ui';
import { useQuery } from '@tanstack/react-query';
import { readServerError, useTRPC } from '../../../lib/trpc';
import { describeEntry } from './model';

/** Who changed the preset and when, from the audit trail: what a school shows its exam board. */
export function PresetHistory({ presetId }: { presetId: string }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.admin.toolPresets.history.queryOptions({ presetId }));
  return (
    <View as="section" display="block" aria-labelledby={`history-${presetId}`}>
      <Heading level="h4" id={`history-${presetId}`} margin="0 0 x-small">
        History
      </Heading>
      {history.isPending ? (
        <Spinner renderTitle="Loading the history" size="x-small" />
      ) : history.isError ? (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
          The history could not be loaded: {readServerError(history.error).message}
        </Alert>
      ) : (
        <List isUnstyled itemSpacing="x-small">
          {history.data.entries.map((entry) => (
            <List.Item key={entry.id}>
              <Text size="small">
                <time dateTime={entry.occurredAt}>{new Date(entry.occurredAt).toLocaleString()}</time> · {entry.actorName ?? `LMS user ${entry.actorLmsUserId ?? '?'}`} ·{' '}
                {describeEntry(entry)}
                {entry.outcome !== 'success' ? ` · ${entry.outcome}` : ''}
              </Text>
            </List.Item>
          ))}
        </List>
      )}
    </View>
  );
}
