import { Heading, Text, View } from '@instructure/ui';
import { DefinitionList } from '../../components/DefinitionList';
import type { AssessmentStatus } from './model';

/** What the exam browser allows for the assessment as last saved, from the server's status view. */
export function EffectiveSummary({ status }: { status: AssessmentStatus }) {
  const list = (values: readonly string[], none: string) => (values.length === 0 ? none : values.join(', '));
  return (
    <View as="section" display="block" margin="0 0 large" aria-labelledby="summary-heading">
      <Heading level="h3" id="summary-heading" margin="0 0 x-small">
        What the exam browser allows
      </Heading>
      <Text as="p" size="small" color="secondary">
        As last saved; changes above count once they are saved.
      </Text>
      <DefinitionList
        label="What the exam browser allows"
        items={[
          { term: 'LMS', description: status.lmsDomain },
          { term: 'Websites', description: list(status.customDomains, 'None') },
          { term: 'Tools', description: list(status.externalTools.map((tool) => tool.label), 'None') },
          { term: 'Tool websites', description: list(status.educationalToolDomains, 'None') },
          {
            term: 'Exit password',
            description: status.configValid ? 'Set' : 'Missing: the exam browser cannot be required yet',
          },
        ]}
      />
    </View>
  );
}
