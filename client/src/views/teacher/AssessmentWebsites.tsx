import { Alert, RadioInput, RadioInputGroup, ScreenReaderContent, Text, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { EditorSection } from './EditorSection';
import { fieldKey } from '../../lib/form-errors';
import { type AssessmentStatus, type CourseDefaults } from './model';
import { ruleRowsOf } from '../../lib/policy-rows';
import type { PolicySectionProps } from './policy-draft';
import { UrlRulesEditor } from '../../components/UrlRulesEditor';

/** The websites one assessment allows: the course's list, or a list of its own. */
export function AssessmentWebsites({
  draft,
  defaults,
  status,
  onChange,
  error,
  focus,
  withdrawError,
  sectionError,
}: PolicySectionProps & {
  defaults: CourseDefaults;
  status: AssessmentStatus;
  sectionError: ReactNode;
}) {
  const { t } = useTranslation(['teacher', 'common']);
  const switchMode = (mode: string) => {
    // The refusal was about the list the teacher now leaves (or its rows): it no longer applies.
    withdrawError([fieldKey.section('urlRules'), ...draft.ruleRows.flatMap((row) => [fieldKey.ruleValue(row.rowId), fieldKey.ruleConfirm(row.rowId)])]);
    if (mode === 'own' && !draft.rulesKnown && draft.ruleRows.length === 0 && draft.urlMode === 'course') {
      // Starting from the course's list is what most teachers want; it is then this assessment's own list.
      onChange({ urlMode: 'own', ruleRows: ruleRowsOf(defaults.urlRules), rulesKnown: true }, 'rules');
      return;
    }
    onChange({ urlMode: mode === 'own' ? 'own' : 'course' });
  };
  return (
    <EditorSection
      id="websites-heading"
      section="urlRules"
      heading={t('websites.heading')}
      intro={t('websites.intro')}
      alert={sectionError}
      focus={focus}
    >
      <RadioInputGroup
        name="url-mode"
        description={<ScreenReaderContent>{t('websites.modeLabel')}</ScreenReaderContent>}
        value={draft.urlMode}
        onChange={(_event, value) => switchMode(value)}
      >
        <RadioInput value="course" label={t('websites.useCourse')} />
        <RadioInput value="own" label={t('websites.useOwn')} />
      </RadioInputGroup>
      <View as="div" margin="small 0 0">
        {draft.urlMode === 'course' ? (
          defaults.urlRules.length === 0 ? (
            <Text as="p" color="secondary">
              {t('websites.courseNone')}
            </Text>
          ) : (
            <ul aria-label={t('websites.courseList')}>
              {defaults.urlRules.map((rule) => (
                <li key={`${rule.match} ${rule.value}`}>
                  <SiteWords rule={rule} />
                </li>
              ))}
            </ul>
          )
        ) : (
          <>
            {!draft.rulesKnown && (
              <Alert variant="info" variantScreenReaderLabel={t('common:variant.info')} hasShadow={false} margin="0 0 small">
                {t('websites.savedListKept', {
                  sites: status.customDomains.length === 0 ? t('websites.noneBesidesLms') : status.customDomains.join(', '),
                })}
              </Alert>
            )}
            <UrlRulesEditor
              rows={draft.ruleRows}
              onChange={(ruleRows) => onChange({ ruleRows }, 'rules')}
              kind={{ group: 'website' }}
              addLabel={t('websites.add')}
              error={error}
              focus={focus}
              withdrawError={withdrawError}
            />
          </>
        )}
      </View>
    </EditorSection>
  );
}

/** A website rule in words: the address (one page), or the site with its subdomains, the value set as code. */
export function SiteWords({ rule }: { rule: Pick<CourseDefaults['urlRules'][number], 'match' | 'value'> }) {
  const { t } = useTranslation('teacher');
  const value = <code className="exb-inline-code">{rule.value}</code>;
  if (rule.match !== 'domain') return value;
  return <Trans t={t} i18nKey="websites.andSubdomains" values={{ site: rule.value }} components={{ site: value }} />;
}
