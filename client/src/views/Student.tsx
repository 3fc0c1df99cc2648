import { Heading, Link, List, Text, View } from '@instructure/ui';
import { AuthorizeButton } from '../components/AuthorizeButton';
import { Page } from '../components/Page';
import { defineView } from '../lib/define-view';
import { localPath, useReloadUrl } from '../lib/launch';
import { httpUrl, optional, z } from '../lib/zod';

const schema = z.object({
  courseId: z.string().min(1),
  courseName: optional(z.string().min(1)),
  userName: optional(z.string().min(1)),
  lmsUserId: z.string().min(1),
  lmsReturnUrl: optional(httpUrl),
  setupCheckUrl: optional(localPath),
  reloadUrl: optional(localPath),
  /** Present when the student must connect their LMS account so the exam browser can sign them in. */
  authorizeUrl: optional(localPath),
});

type Data = z.output<typeof schema>;

/** The student's course shell: what the tool does for them and what to do before an exam. */
function Student({ data }: { data: Data }) {
  useReloadUrl(data.reloadUrl);
  const course = data.courseName ?? `Course ${data.courseId}`;
  return (
    <Page title={course}>
      <Text as="p">
        {data.userName ? `Welcome, ${data.userName}. ` : ''}Some quizzes in this course must be taken in the secure exam
        browser. When you open such a quiz in the LMS, you get a one-time configuration that starts it there.
      </Text>
      <View as="section" display="block" margin="medium 0" aria-labelledby="next-step-heading">
        <Heading level="h2" id="next-step-heading" margin="0 0 small">
          Before your exam
        </Heading>
        <List margin="0 0 small">
          <List.Item>Install the secure exam browser on the computer you will use.</List.Item>
          <List.Item>Run the setup check once to make sure it works.</List.Item>
          <List.Item>On exam day, open the quiz from the course in the LMS and follow the instructions.</List.Item>
        </List>
        {data.setupCheckUrl !== undefined && (
          <Link href={data.setupCheckUrl} variant="standalone">
            Run the setup check
          </Link>
        )}
      </View>
      {data.authorizeUrl !== undefined && (
        <View as="section" display="block" margin="medium 0" aria-labelledby="connect-heading">
          <Heading level="h2" id="connect-heading" margin="0 0 small">
            Connect your LMS account
          </Heading>
          <Text as="p">
            The exam browser signs you in to the LMS by itself. For that, allow the tool once to open an LMS session for
            you; the LMS asks you to confirm in a new window.
          </Text>
          <AuthorizeButton startUrl={data.authorizeUrl}>Connect your LMS account</AuthorizeButton>
        </View>
      )}
      {data.lmsReturnUrl !== undefined && (
        <Link href={data.lmsReturnUrl} target="_top">
          Back to the course in the LMS
        </Link>
      )}
    </Page>
  );
}

export default defineView(schema, Student);
