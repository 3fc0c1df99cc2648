import { Alert, RadioInput, RadioInputGroup, ScreenReaderContent, Text, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { EditorSection } from './EditorSection';
import { ruleRowsOf, type AssessmentStatus, type CourseDefaults } from './model';
import type { PolicySectionProps } from './policy-draft';
import { UrlRulesEditor } from './UrlRulesEditor';

/** The websites one assessment allows: the course's list, or a list of its own. */
export function AssessmentWebsites({
  draft,
  defaults,
  status,
  onChange,
  error,
  focus,
  sectionError,
}: PolicySectionProps & {
  defaults: CourseDefaults;
  status: AssessmentStatus;
  sectionError: ReactNode;
}) {
  const switchMode = (mode: string) => {
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
      heading="Allowed websites"
      intro="The exam browser always allows the LMS itself. Add the other pages or sites students may open during this exam."
      alert={sectionError}
      focus={focus}
    >
      <RadioInputGroup
        name="url-mode"
        description={<ScreenReaderContent>Which websites this exam allows</ScreenReaderContent>}
        value={draft.urlMode}
        onChange={(_event, value) => switchMode(value)}
      >
        <RadioInput value="course" label="Use the course’s websites" />
        <RadioInput value="own" label="Use a list for this assessment" />
      </RadioInputGroup>
      <View as="div" margin="small 0 0">
        {draft.urlMode === 'course' ? (
          defaults.urlRules.length === 0 ? (
            <Text as="p" color="secondary">
              The course allows no websites besides the LMS.
            </Text>
          ) : (
            <ul aria-label="The course’s websites">
              {defaults.urlRules.map((rule) => (
                <li key={`${rule.match} ${rule.value}`}>
                  <code className="exb-inline-code">{rule.value}</code>
                  {rule.match === 'domain' ? ' and its subdomains' : ''}
                </li>
              ))}
            </ul>
          )
        ) : (
          <>
            {!draft.rulesKnown && (
              <Alert variant="info" variantScreenReaderLabel="Information," hasShadow={false} margin="0 0 small">
                This assessment’s saved list is kept as it is unless you change it here. It currently allows{' '}
                {status.customDomains.length === 0 ? 'no websites besides the LMS' : status.customDomains.join(', ')}. Adding
                or removing a website below replaces the saved list.
              </Alert>
            )}
            <UrlRulesEditor
              rows={draft.ruleRows}
              onChange={(ruleRows) => onChange({ ruleRows }, 'rules')}
              rowNoun="Website"
              addLabel="Add a website"
              error={error}
              focus={focus}
            />
          </>
        )}
      </View>
    </EditorSection>
  );
}
