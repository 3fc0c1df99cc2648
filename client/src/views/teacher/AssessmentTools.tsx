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
import { FocusTarget } from '../../components/FocusTarget';
import { EditorSection } from './EditorSection';
import { fieldKey } from './form-errors';
import type { CourseDefaults } from './model';
import type { PolicySectionProps, Touched } from './policy-draft';
import { RemoveToolButton, ToolCard } from './ToolCard';
import { ToolFields } from './ToolFields';
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
  onOpenCourseDefaults: () => void;
}) {
  const catalog = defaults.externalTools;
  const quizTools = toolRowActions(draft.quizTools, (rows) => onChange({ quizTools: rows }, 'quizTools'), focus, 'quizTools');
  const lossWarning = touched.has('quizTools') && draft.quizTools.some((tool) => tool.resourceRulesUnknown === true);

  return (
    <EditorSection
      id="tools-heading"
      section="toolSelection"
      heading="Approved tools"
      intro="Tools students may open from the exam browser’s tool list, such as a calculator or a dictionary."
      alert={selectionError}
      focus={focus}
    >
      {catalog.length === 0 ? (
        <Text as="p">
          The course has no exam tools yet.{' '}
          <Link as="button" onClick={onOpenCourseDefaults} isWithinText>
            Add tools in the course defaults
          </Link>
          .
        </Text>
      ) : (
        <>
          <RadioInputGroup
            name="tool-mode"
            description="Tools from the course"
            value={draft.toolMode}
            onChange={(_event, value) => onChange({ toolMode: value === 'selected' ? 'selected' : 'all' }, 'tools')}
          >
            <RadioInput value="all" label="All tools of the course" />
            <RadioInput value="selected" label="Only the tools selected below" />
          </RadioInputGroup>
          {draft.toolMode === 'selected' && (
            <View as="div" margin="small 0 0 medium">
              <CheckboxGroup
                name="course-tools"
                description={<ScreenReaderContent>Course tools for this assessment</ScreenReaderContent>}
                value={[...draft.selectedToolIds]}
                onChange={(values) => onChange({ selectedToolIds: values.map(String) }, 'tools')}
              >
                {catalog.map((tool) => (
                  <Checkbox
                    key={tool.id}
                    value={tool.id}
                    label={`${tool.label}${tool.managedByAdmin ? ' (school-managed)' : ''}${tool.enabled ? '' : ' (switched off for the course)'}`}
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
            Tools for this assessment only
          </Heading>
        </FocusTarget>
        {quizToolsError}
        {lossWarning && (
          <Alert variant="warning" variantScreenReaderLabel="Warning," hasShadow={false} margin="0 0 small">
            Other websites that the tools listed before this visit need are not shown here, and saving this list
            removes them. Add them again below if the tools still need them.
          </Alert>
        )}
        {draft.quizTools.length === 0 ? (
          <Text as="p" color="secondary">
            None.
          </Text>
        ) : (
          draft.quizTools.map((tool, index) => (
            <ToolCard key={tool.rowId} name={`Assessment tool ${index + 1}`}>
              <ToolFields tool={tool} onChange={(change) => quizTools.update(tool.rowId, change)} error={error} focus={focus} />
              <RemoveToolButton
                name={tool.label || `assessment tool ${index + 1}`}
                margin="small 0 0"
                onRemove={() => quizTools.remove(tool.rowId)}
              />
            </ToolCard>
          ))
        )}
        <Button renderIcon={<IconAddLine />} onClick={() => quizTools.add()}>
          Add a tool for this assessment
        </Button>
      </View>
    </EditorSection>
  );
}
