import {
  Alert,
  Button,
  Checkbox,
  CheckboxGroup,
  Heading,
  IconAddLine,
  Link,
  RadioInput,
  RadioInputGroup,
  ScreenReaderContent,
  Text,
  View,
} from '@instructure/ui';
import type { ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { Trans, useTranslation } from 'react-i18next';
import { FocusTarget } from '../../components/FocusTarget';
import { EditorSection } from './EditorSection';
import { fieldKey } from '../../lib/form-errors';
import type { CourseDefaults } from './model';
import type { PolicySectionProps, Touched } from './policy-draft';
import { RemoveToolButton, ToolCard } from './ToolCard';
import { ToolFields } from '../../components/ToolFields';
import { toolRowActions } from './tool-rows';

/**
 * The tools one assessment approves: all of the course's tools or a selection of them, and tools defined for this
 * assessment only.
 */
export function AssessmentTools({
  draft,
  defaults,
  touched,
  onChange,
  error,
  focus,
  selectionError,
  quizToolsError,
  onOpenCourseDefaults,
}: PolicySectionProps & {
  defaults: CourseDefaults;
  touched: ReadonlySet<Touched>;
  selectionError: ReactNode;
  quizToolsError: ReactNode;
  onOpenCourseDefaults: (field?: string) => void;
}) {
  const { t } = useTranslation(['teacher', 'common']);
  const catalog = defaults.externalTools;
  const quizTools = toolRowActions(draft.quizTools, (rows) => onChange({ quizTools: rows }, 'quizTools'), focus, 'quizTools');
  const lossWarning = touched.has('quizTools') && draft.quizTools.some((tool) => tool.resourceRulesUnknown === true);

  return (
    <EditorSection
      id="tools-heading"
      section="toolSelection"
      heading={t('approvedTools.heading')}
      intro={t('approvedTools.intro')}
      alert={selectionError}
      focus={focus}
    >
      {catalog.length === 0 ? (
        <Text as="p">
          <Trans
            t={t}
            i18nKey="approvedTools.noneInCourse"
            components={{
              defaults: (
                // Its words are the catalogue's, between <defaults> and </defaults>.
                <Link as="button" onClick={() => onOpenCourseDefaults()} isWithinText>
                  {null}
                </Link>
              ),
            }}
          />
        </Text>
      ) : (
        <>
          <RadioInputGroup
            name="tool-mode"
            description={t('approvedTools.fromCourse')}
            value={draft.toolMode}
            onChange={(_event, value) => onChange({ toolMode: value === 'selected' ? 'selected' : 'all' }, 'tools')}
          >
            <RadioInput value="all" label={t('approvedTools.all')} />
            <RadioInput value="selected" label={t('approvedTools.selected')} />
          </RadioInputGroup>
          {draft.toolMode === 'selected' && (
            <View as="div" margin="small 0 0 medium">
              <CheckboxGroup
                name="course-tools"
                description={<ScreenReaderContent>{t('approvedTools.selectionLabel')}</ScreenReaderContent>}
                value={[...draft.selectedToolIds]}
                onChange={(values) => onChange({ selectedToolIds: values.map(String) }, 'tools')}
              >
                {catalog.map((tool) => (
                  <Checkbox
                    key={tool.id}
                    value={tool.id}
                    label={catalogToolLabel(t, tool)}
                  />
                ))}
              </CheckboxGroup>
            </View>
          )}
        </>
      )}

      <View as="div" margin="medium 0 0">
        <FocusTarget focusRef={focus.register(fieldKey.section('quizTools'))}>
          <Heading level="h4" margin="0 0 x-small">
            {t('approvedTools.ownHeading')}
          </Heading>
        </FocusTarget>
        {quizToolsError}
        {lossWarning && (
          <Alert variant="warning" variantScreenReaderLabel={t('common:variant.warning')} hasShadow={false} margin="0 0 small">
            {t('approvedTools.lossWarning')}
          </Alert>
        )}
        {draft.quizTools.length === 0 ? (
          <Text as="p" color="secondary">
            {t('approvedTools.none')}
          </Text>
        ) : (
          draft.quizTools.map((tool, index) => (
            <ToolCard key={tool.rowId} name={t('approvedTools.toolName', { n: index + 1 })}>
              <ToolFields tool={tool} onChange={(change) => quizTools.update(tool.rowId, change)} error={error} focus={focus} />
              <RemoveToolButton
                name={tool.label || t('approvedTools.toolName', { n: index + 1 })}
                margin="small 0 0"
                onRemove={() => quizTools.remove(tool.rowId)}
              />
            </ToolCard>
          ))
        )}
        <Button renderIcon={<IconAddLine />} onClick={() => quizTools.add()}>
          {t('approvedTools.add')}
        </Button>
      </View>
    </EditorSection>
  );
}

/** A course tool as the selection names it: its name, and whether the school manages it or the course switched it off. */
function catalogToolLabel(t: TFunction<'teacher'>, tool: CourseDefaults['externalTools'][number]): string {
  if (tool.managedByAdmin) return t(tool.enabled ? 'approvedTools.managedSuffix' : 'approvedTools.managedOffSuffix', { label: tool.label });
  return tool.enabled ? tool.label : t('approvedTools.offSuffix', { label: tool.label });
}
