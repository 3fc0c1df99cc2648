import { Alert, Checkbox, Heading, Spinner, Text, View } from '@instructure/ui';
import { setupCompletionRefusal } from '@exb/shared/exb-policy.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { readServerError, useTRPC, useTRPCClient, type RouterInputs } from '../../lib/trpc';
import { CopyToolDialog } from './CopyToolDialog';
import { EditorSection, sectionError as sectionAlert } from './EditorSection';
import { fieldKey, messagesFor } from './form-errors';
import {
  isBlankTool,
  ruleRowsOf,
  submitRules,
  submitTool,
  toolRowOf,
  type CourseDefaults,
  type CourseScope,
  type RuleRow,
  type ToolRow,
} from './model';
import { CoursePasswordField, passwordInput, type PasswordDraft } from './PasswordFields';
import { PasswordsSection } from './PasswordsSection';
import { useCourseDefaults, useSchoolExitPassword } from './queries';
import { SaveBar, SaveOutcome } from './SaveBar';
import { useSaveOutcome } from './save-outcome';
import { ToolCatalog } from './ToolCatalog';
import { UrlRulesEditor } from './UrlRulesEditor';
import { useWarnBeforeUnload } from './unsaved-changes';

interface DefaultsDraft {
  readonly ruleRows: readonly RuleRow[];
  readonly tools: readonly ToolRow[];
  readonly start: PasswordDraft;
  readonly exit: PasswordDraft;
  readonly setupCompleted: boolean;
}

function draftOf(defaults: CourseDefaults): DefaultsDraft {
  return {
    ruleRows: ruleRowsOf(defaults.urlRules),
    tools: defaults.externalTools.map(toolRowOf),
    start: { value: '', remove: false },
    exit: { value: '', remove: false },
    setupCompleted: defaults.setupCompleted,
  };
}

/** What every assessment of the course inherits: websites, the tool catalog, passwords, and the setup state. */
export function CourseDefaultsPanel({ scope }: { scope: CourseScope }) {
  const defaults = useCourseDefaults(scope);
  // A successful save starts a fresh form from what the server stored (normalized addresses, assigned tool ids); the
  // confirmation lives here so it outlasts the form it came from.
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);

  if (defaults.isPending) {
    return (
      <View as="div" textAlign="center" padding="large">
        <Spinner renderTitle="Loading the course defaults" size="small" />
      </View>
    );
  }
  if (defaults.isError) {
    return (
      <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
        The course defaults could not be loaded: {readServerError(defaults.error).message}
      </Alert>
    );
  }
  return (
    <DefaultsForm
      key={version}
      scope={scope}
      defaults={defaults.data.defaults}
      notice={notice}
      onNotice={setNotice}
      onSaved={(message) => {
        setNotice(message);
        setVersion((v) => v + 1);
      }}
    />
  );
}

function DefaultsForm({
  scope,
  defaults,
  notice,
  onNotice,
  onSaved,
}: {
  scope: CourseScope;
  defaults: CourseDefaults;
  notice: string | null;
  onNotice: (notice: string | null) => void;
  onSaved: (message: string) => void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const { focus, announcement, formError, submission, start, refuse, refuseHere } = useSaveOutcome('The course defaults', {
    saved: [notice, onNotice],
  });
  const schoolExitPassword = useSchoolExitPassword();
  const [draft, setDraft] = useState<DefaultsDraft>(() => draftOf(defaults));
  const [editing, setEditing] = useState<ReadonlySet<string>>(new Set());
  const [dirty, setDirty] = useState(false);
  const [copying, setCopying] = useState<{ id: string; label: string } | null>(null);
  useWarnBeforeUnload(dirty);

  const change = (next: Partial<DefaultsDraft>) => {
    setDraft((current) => ({ ...current, ...next }));
    setDirty(true);
    onNotice(null);
  };

  const save = useMutation(
    trpc.instructor.courseDefaults.save.mutationOptions({
      onMutate: start,
      onSuccess: (result) => {
        queryClient.setQueryData(trpc.instructor.courseDefaults.get.queryKey({ courseId: scope.courseId }), {
          success: true as const,
          defaults: result.defaults,
        });
        // Effective settings of every assessment may have changed with the defaults.
        void queryClient.invalidateQueries({ queryKey: trpc.instructor.enforcement.status.queryKey() });
        onSaved(result.message);
      },
      onError: refuse,
    }),
  );

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const setupRefusal = setupCompletionRefusal({
      setupCompleted: draft.setupCompleted,
      exitPasswordAvailable:
        (defaults.hasQuitPassword && !draft.exit.remove) ||
        draft.exit.value !== '' ||
        // Refused only once it is known that the school set none: a teacher whose school did is never held up.
        schoolExitPassword.data?.set !== false,
    });
    if (setupRefusal !== null) {
      refuseHere(fieldKey.setupCompleted(), setupRefusal);
      return;
    }
    const rules = submitRules(draft.ruleRows);
    const tools = draft.tools.filter((tool) => !isBlankTool(tool)).map(submitTool);
    const input: RouterInputs['instructor']['courseDefaults']['save'] = {
      courseId: scope.courseId,
      urlRules: rules.rules,
      externalTools: tools.map((tool) => tool.tool),
      setupCompleted: draft.setupCompleted,
    };
    const start = passwordInput(draft.start);
    const exit = passwordInput(draft.exit);
    if (start !== undefined) input.startPassword = start;
    if (exit !== undefined) input.quitPassword = exit;
    submission.current = { urlRules: rules.rowIds, toolLists: { externalTools: tools } };
    save.mutate(input);
  };

  const savedToolIds = new Set(defaults.externalTools.map((tool) => tool.id));
  const sectionError = (name: 'urlRules' | 'tools' | 'passwords') => sectionAlert(formError, name);

  return (
    <>
      <form onSubmit={handleSubmit} noValidate aria-labelledby="defaults-heading">
        {announcement}
        <Heading level="h2" id="defaults-heading" margin="0 0 x-small">
          Course defaults
        </Heading>
        <Text as="p" color="secondary">
          Every assessment of {scope.courseName} uses these settings unless its own settings say otherwise.
        </Text>

        <EditorSection
          id="defaults-websites-heading"
          section="urlRules"
          heading="Allowed websites"
          intro="Pages or sites students may open during any exam of the course. The LMS itself is always allowed."
          alert={sectionError('urlRules')}
          focus={focus}
          margin="medium 0 large"
        >
          <UrlRulesEditor
            rows={draft.ruleRows}
            onChange={(ruleRows) => change({ ruleRows })}
            rowNoun="Course website"
            addLabel="Add a website"
            error={formError}
            focus={focus}
          />
        </EditorSection>

        <ToolCatalog
          tools={draft.tools}
          savedToolIds={savedToolIds}
          editing={editing}
          setEditing={setEditing}
          onChange={(tools) => change({ tools })}
          onCopy={(tool) => setCopying(tool)}
          error={formError}
          focus={focus}
          sectionError={sectionError('tools')}
        />

        <PasswordsSection
          id="defaults-passwords-heading"
          intro="Assessments without a password of their own use these. If the course has no exit password, the school’s default applies where your school set one."
          alert={sectionError('passwords')}
          focus={focus}
          field={(which) => (
            <CoursePasswordField
              which={which}
              isSet={which === 'start' ? defaults.hasStartPassword : defaults.hasQuitPassword}
              draft={which === 'start' ? draft.start : draft.exit}
              onChange={(next) => change(which === 'start' ? { start: next } : { exit: next })}
              error={formError}
              focus={focus}
            />
          )}
          subject="the course"
          reveal={() => client.instructor.passwords.revealCourse.mutate({ courseId: scope.courseId })}
        />

        <View as="section" display="block" margin="0 0 large" aria-labelledby="defaults-setup-heading">
          <Heading level="h3" id="defaults-setup-heading" margin="0 0 x-small">
            Setup
          </Heading>
          <Checkbox
            label="The setup of this course is complete"
            checked={draft.setupCompleted}
            onChange={(event) => change({ setupCompleted: event.target.checked })}
            messages={
              messagesFor(formError, fieldKey.setupCompleted()) ?? [{ type: 'hint', text: 'Hides the setup reminder above the assessments.' }]
            }
            inputRef={focus.register(fieldKey.setupCompleted())}
          />
        </View>

        <SaveOutcome subject="The course defaults" refusal={formError?.message ?? null} saved={notice} onDismiss={() => onNotice(null)} />
        <SaveBar label="Save course defaults" saving={save.isPending}>
          {dirty && (
            <Text size="small" color="secondary">
              Unsaved changes
            </Text>
          )}
        </SaveBar>
      </form>
      {/* Outside the form: the dialog's buttons must never submit the defaults. */}
      {copying !== null && <CopyToolDialog scope={scope} tool={copying} onClose={() => setCopying(null)} />}
    </>
  );
}
