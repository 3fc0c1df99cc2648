import { Heading, Metric, MetricGroup, ScreenReaderContent, Text, View } from '@instructure/ui';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState';
import { StatusAlert } from '../../components/StatusAlert';
import { useTRPC } from '../../lib/trpc';
import { useCatchUp } from './catch-up';

/**
 * The account's totals at a glance, with a warning when the LMS does not let the administrator manage courses. Opening
 * it also sends the account's catch-up (legacy backfill, reconciliation batch).
 */
export function SummaryHeader() {
  const { t, i18n } = useTranslation('admin');
  const trpc = useTRPC();
  useCatchUp();
  const summary = useQuery(trpc.admin.summary.queryOptions());
  const number = (value: number) => value.toLocaleString(i18n.language);
  return (
    <View as="section" display="block" margin="0 0 medium" aria-labelledby="summary-heading">
      <ScreenReaderContent>
        <Heading level="h2" id="summary-heading">
          {t('summary.heading')}
        </Heading>
      </ScreenReaderContent>
      <QueryState query={summary} size="small" loading={t('summary.loading')} failed={(reason) => t('summary.failed', { reason })}>
        {({ summary: counts, permissions, operationalTerm }) => (
          <>
            {!permissions.manage_courses && (
              <StatusAlert variant="warning" margin="0 0 small">
                {t('summary.cannotManage')}
              </StatusAlert>
            )}
            <View as="div" padding="small" borderWidth="small" borderRadius="medium" background="secondary">
              <MetricGroup>
                <Metric renderLabel={t('summary.courses')} renderValue={number(counts.courseCount)} />
                <Metric renderLabel={t('summary.configured')} renderValue={number(counts.configuredCourseCount)} />
                <Metric renderLabel={t('summary.enforced')} renderValue={number(counts.enabledAssessmentCount)} />
                <Metric renderLabel={t('summary.presets')} renderValue={number(counts.toolPresetCount)} />
              </MetricGroup>
            </View>
            <Text as="p" size="small" color="secondary">
              {t('summary.operationalTerm', { term: operationalTerm?.name ?? t('summary.noTerm') })}
            </Text>
          </>
        )}
      </QueryState>
    </View>
  );
}
