import { Alert, Heading, Metric, MetricGroup, ScreenReaderContent, Spinner, Text, View } from '@instructure/ui';
import { useQuery } from '@tanstack/react-query';
import { readServerError, useTRPC } from '../../lib/trpc';

/** The account's totals at a glance, with a warning when the LMS does not let the administrator manage courses. */
export function SummaryHeader() {
  const trpc = useTRPC();
  const summary = useQuery(trpc.admin.summary.queryOptions());
  if (summary.isPending) {
    return (
      <View as="div" padding="small" textAlign="center">
        <Spinner renderTitle="Loading the account summary" size="x-small" />
      </View>
    );
  }
  if (summary.isError) {
    return (
      <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false} margin="0 0 medium">
        The account summary could not be loaded: {readServerError(summary.error).message} Reload the page to try again.
      </Alert>
    );
  }
  const { summary: counts, permissions, operationalTerm } = summary.data;
  return (
    <View as="section" display="block" margin="0 0 medium" aria-labelledby="summary-heading">
      <ScreenReaderContent>
        <Heading level="h2" id="summary-heading">
          Account summary
        </Heading>
      </ScreenReaderContent>
      {!permissions.manage_courses && (
        <Alert variant="warning" variantScreenReaderLabel="Warning," hasShadow={false} margin="0 0 small">
          The LMS does not let your account manage courses. You can look around, but changes to quizzes may be refused; ask the
          LMS administrator for the course management permission.
        </Alert>
      )}
      <View as="div" padding="small" borderWidth="small" borderRadius="medium" background="secondary">
        <MetricGroup>
          <Metric renderLabel="Connected courses" renderValue={counts.courseCount} />
          <Metric renderLabel="Courses set up" renderValue={counts.configuredCourseCount} />
          <Metric renderLabel="Quizzes requiring the exam browser" renderValue={counts.enabledAssessmentCount} />
          <Metric renderLabel="School tool presets" renderValue={counts.toolPresetCount} />
        </MetricGroup>
      </View>
      <Text as="p" size="small" color="secondary">
        Operational term: {operationalTerm?.name ?? 'none'}
      </Text>
    </View>
  );
}
