import { Heading, Link, Text, View } from '@instructure/ui';
import { AuthorizeButton } from '../components/AuthorizeButton';
import { DefinitionList } from '../components/DefinitionList';
import { Page } from '../components/Page';
import { defineView } from '../lib/define-view';
import { localPath, useReloadUrl } from '../lib/launch';
import { httpUrl, optional, z } from '../lib/zod';

const schema = z.object({
  accountId: z.string().min(1),
  accountName: optional(z.string().min(1)),
  userName: optional(z.string().min(1)),
  lmsUserId: z.string().min(1),
  lmsReturnUrl: optional(httpUrl),
  /** Starts the administrator authorization the dashboard needs. */
  authorizeUrl: localPath,
  reloadUrl: optional(localPath),
});

type Data = z.output<typeof schema>;

/** The root-account administrator's dashboard shell. */
function Admin({ data }: { data: Data }) {
  useReloadUrl(data.reloadUrl);
  const account = data.accountName ?? `Account ${data.accountId}`;
  return (
    <Page title={`${account}: exam browser administration`}>
      <Text as="p">
        {data.userName ? `Signed in as ${data.userName}, ` : 'Signed in as '}administrator of the root account. From here
        you see the courses that use exam browser enforcement and manage the school’s approved tools.
      </Text>
      <View as="section" display="block" margin="medium 0" aria-labelledby="next-step-heading">
        <Heading level="h2" id="next-step-heading" margin="0 0 small">
          Next step
        </Heading>
        <Text as="p">
          The dashboard reads courses and quizzes across the account, which needs your administrator authorization in the
          LMS. You grant it once; the LMS keeps checking your account permissions.
        </Text>
        <AuthorizeButton startUrl={data.authorizeUrl}>Authorize administrator access in the LMS</AuthorizeButton>
      </View>
      <DefinitionList
        label="Launch details"
        items={[
          { term: 'Account', description: account },
          { term: 'LMS account id', description: data.accountId },
          { term: 'LMS user id', description: data.lmsUserId },
        ]}
      />
      {data.lmsReturnUrl !== undefined && (
        <Link href={data.lmsReturnUrl} target="_top">
          Back to the account in the LMS
        </Link>
      )}
    </Page>
  );
}

export default defineView(schema, Admin);
