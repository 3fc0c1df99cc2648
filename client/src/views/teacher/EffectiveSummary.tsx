import { Heading, Text, View } from '@instructure/ui';
import { useTranslation } from 'react-i18next';
import { DefinitionList } from '../../components/DefinitionList';
import { SiteWords } from './AssessmentWebsites';
import type { AssessmentStatus } from './model';

/** What the exam browser allows for the assessment as last saved, from the server's status view. */
export function EffectiveSummary({ status }: { status: AssessmentStatus }) {
  const { t } = useTranslation('teacher');
  const list = (values: readonly string[]) => (values.length === 0 ? t('summary.none') : values.join(', '));
  // Each rule as it is matched: an exact page shows its whole address, a site says that its subdomains count too.
  const websites =
    status.websiteRules.length === 0
      ? t('summary.none')
      : status.websiteRules.map((rule, index) => (
          <span key={`${rule.match} ${rule.value}`}>
            {index > 0 && ', '}
            <SiteWords rule={rule} />
          </span>
        ));
  return (
    <View as="section" display="block" margin="0 0 large" aria-labelledby="summary-heading">
      <Heading level="h3" id="summary-heading" margin="0 0 x-small">
        {t('summary.heading')}
      </Heading>
      <Text as="p" size="small" color="secondary">
        {t('summary.asSaved')}
      </Text>
      <DefinitionList
        label={t('summary.heading')}
        items={[
          { key: 'lms', term: t('summary.lms'), description: status.lmsDomain },
          { key: 'websites', term: t('summary.websites'), description: websites },
          { key: 'tools', term: t('summary.tools'), description: list(status.externalTools.map((tool) => tool.label)) },
          { key: 'tool-websites', term: t('summary.toolWebsites'), description: list(status.educationalToolDomains) },
          { key: 'exit', term: t('summary.exitPassword'), description: status.configValid ? t('summary.set') : t('summary.missing') },
        ]}
      />
    </View>
  );
}
