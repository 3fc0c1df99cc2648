import { Alert, List, Text, View } from '@instructure/ui';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { getLiveRegion } from '../../lib/live-region';
import type { ConnectOutcome } from './model';

/** What became of each course of a connect request, and the entries that named no course. */
export function ConnectResults({ outcome, names }: { outcome: ConnectOutcome; names: ReadonlyMap<string, string> }) {
  const failed = outcome.results.filter((result) => !result.success);
  const summary =
    failed.length === 0
      ? `Connected ${outcome.connectedCount} course${outcome.connectedCount === 1 ? '' : 's'}.`
      : `Connected ${outcome.connectedCount} of ${outcome.results.length} courses. The others are listed below with what to do.`;
  return (
    <View as="div" margin="small 0 0">
      <Alert
        variant={failed.length === 0 ? 'success' : 'warning'}
        variantScreenReaderLabel={failed.length === 0 ? 'Success,' : 'Warning,'}
        hasShadow={false}
        liveRegion={getLiveRegion}
        liveRegionPoliteness="polite"
      >
        {summary}
      </Alert>
      <List margin="small 0 0" aria-label="Result for each course">
        {outcome.results.map((result) => (
          <List.Item key={result.courseId}>
            {result.success ? (
              <Text>
                <Text weight="bold">{result.course.name}</Text> (course {result.courseId}): connected
              </Text>
            ) : (
              <Text>
                <Text weight="bold">{names.get(result.courseId) ?? `Course ${result.courseId}`}</Text>: not connected. {result.error.message}{' '}
                {result.error.error_code === ErrorCodes.ADMIN_COURSE_NOT_IN_ACCOUNT
                  ? 'Check the id, or connect it from the school it belongs to.'
                  : 'Try this course again in a moment.'}
              </Text>
            )}
          </List.Item>
        ))}
      </List>
      {outcome.unrecognized.length > 0 && (
        <Text as="p" color="secondary" size="small">
          Not course ids or course addresses of this LMS, so left out: {outcome.unrecognized.join(', ')}
        </Text>
      )}
    </View>
  );
}
