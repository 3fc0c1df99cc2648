import { Heading, List, Text, View } from '@instructure/ui';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../../components/QueryState';
import { AUDIT_OUTCOME_LABEL } from '../../../lib/audit-labels';
import { useTRPC } from '../../../lib/trpc';
import { formatDateTime } from '../model';
import { describeEntry } from './model';

/** Who changed the preset and when, from the audit trail: what a school shows its exam board. */
export function PresetHistory({ presetId }: { presetId: string }) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const history = useQuery(trpc.admin.toolPresets.history.queryOptions({ presetId }));
  return (
    <View as="section" display="block" aria-labelledby={`history-${presetId}`}>
      <Heading level="h4" id={`history-${presetId}`} margin="0 0 x-small">
        {t('presets.history.heading')}
      </Heading>
      <QueryState query={history} size="small" loading={t('presets.history.loading')} failed={(reason) => t('presets.history.loadFailed', { reason })}>
        {(data) => (
          <List isUnstyled itemSpacing="x-small">
            {data.entries.map((entry) => (
              <List.Item key={entry.id}>
                <Text size="small">
                  <time dateTime={entry.occurredAt}>{formatDateTime(entry.occurredAt)}</time> ·{' '}
                  {entry.actorName ?? t('presets.history.lmsUser', { id: entry.actorLmsUserId ?? '?' })} · {describeEntry(entry)}
                  {entry.outcome !== 'success' ? ` · ${AUDIT_OUTCOME_LABEL[entry.outcome] ?? entry.outcome}` : ''}
                </Text>
              </List.Item>
            ))}
          </List>
        )}
      </QueryState>
    </View>
  );
}
