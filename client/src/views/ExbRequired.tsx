import { Alert, Heading, Link, List, Text, View } from '@instructure/ui';
import { Page } from '../components/Page';
import { defineView } from '../lib/define-view';
import { localPath, useReloadUrl } from '../lib/launch';
import { httpUrl, optional, z } from '../lib/zod';

const schema = z.object({
  courseId: z.string().min(1),
  contentId: z.string().min(1),
  assessmentKind: z.enum(['classic', 'newquiz']),
  courseName: optional(z.string().min(1)),
  userName: optional(z.string().min(1)),
  lmsUserId: z.string().min(1),
  assessmentUrl: httpUrl,
  lmsReturnUrl: optional(httpUrl),
  setupCheckUrl: optional(localPath),
  reloadUrl: optional(localPath),
  /** Authorizes the configuration download; issued with the student flow. */
  actionToken: optional(z.string().min(1)),
});

type Data = z.output<typeof schema>;

/** Shown when a quiz requires the exam browser and this browser is not it. */
function ExbRequired({ data }: { data: Data }) {
  useReloadUrl(data.reloadUrl);
  const { actionToken } = data;
  return (
    <Page title="This quiz requires the secure exam browser">
      <Alert variant="info" variantScreenReaderLabel="Information," hasShadow={false} margin="0 0 medium">
        <Text>
          Your instructor requires this quiz to be taken in the secure exam browser. It cannot be started in this
          browser.
        </Text>
      </Alert>
      <View as="section" display="block" margin="0 0 medium" aria-labelledby="next-step-heading">
        <Heading level="h2" id="next-step-heading" margin="0 0 small">
          Start the quiz in the exam browser
        </Heading>
        <List margin="0 0 small">
          <List.Item>Make sure the secure exam browser is installed on this computer.</List.Item>
          <List.Item>Download the one-time configuration for this quiz; it opens the quiz in the exam browser.</List.Item>
          <List.Item>The exam browser receives the quiz’s access code by itself; you do not need to type it.</List.Item>
        </List>
        {actionToken === undefined && (
          <Text as="p" color="secondary">
            The configuration download is not available from this page yet. Open the quiz again from the LMS in a
            moment; if this message stays, ask your instructor.
          </Text>
        )}
        {data.setupCheckUrl !== undefined && (
          <Link href={data.setupCheckUrl} variant="standalone">
            Check that the exam browser works
          </Link>
        )}
      </View>
      {data.lmsReturnUrl !== undefined && (
        <Link href={data.lmsReturnUrl} target="_top">
          Back to the course in the LMS
        </Link>
      )}
    </Page>
  );
}

export default defineView(schema, ExbRequired);
