import { Alert, Checkbox, Heading, Spinner, Text, View } from '@instructure/ui';
import { setupCompletionProblem } from '@exb/shared/exb-policy.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { readServerError, translatePolicyMessage, useTRPC, useTRPCClient, type RouterInputs } from '../../lib/trpc';
import { CopyToolDialog } from './CopyToolDialog';
import { EditorSection, sectionError as sectionAlert } from './EditorSection';
import { fieldKey, messagesFor } from '../../lib/form-errors';
import { type CourseDefaults, type CourseScope } from './model';
import { isBlankTool, ruleRowsOf, submitRules, submitTool, toolRowOf, type RuleRow, type ToolRow } from '../../lib/policy-rows';
import { CoursePasswordField, passwordInput, type PasswordDraft } from './PasswordFields';
import { PasswordsSection } from './PasswordsSection';
import { useCourseDefaults, useSchoolExitPassword } from './queries';
import { SaveBar, SaveOutcome } from './SaveBar';
import { AutoRepairToggle } from './PreExamSweep';
import { useSaveOutcome } from './save-outcome';
import { ToolCatalog } from './ToolCatalog';
import { UrlRulesEditor } from '../../components/UrlRulesEditor';
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
/** A field of the course defaults to put the focus on, asked anew by each new object (a link elsewhere opened them). */
export type DefaultsFocusRequest = { readonly key: string };

export function CourseDefaultsPanel({ scope, focusRequest = null }: { scope: CourseScope; focusRequest?: DefaultsFocusRequest | null }) {
  const { t } = useTranslation(['teacher', 'common']);
  const defaults = useCourseDefaults(scope);
  // A successful save starts a fresh form from what the server stored (normalized addresses, assigned tool ids); the
  // confirmation lives here so it outlasts the form it came from.
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);

  if (defaults.isPending) {
    return (
      <View as="div" textAlign="center" padding="large">
        <Spinner renderTitle={t('defaults.loading')} size="small" />
      </View>
    );
  }
  if (defaults.isError) {
    return (
      <Alert variant="error" variantScreenReaderLabel={t('common:variant.error')} hasShadow={false}>
        {t('defaults.loadFailed', { reason: readServerError(defaults.error).message })}
      </Alert>
    );
  }
  return (
    <DefaultsForm
      // A rule rewritten from the assessments list changes the stored rules: the form starts again from them.
      key={`${version}:${JSON.stringify(defaults.data.defaults.urlRules)}`}
      scope={scope}
      defaults={defaults.data.defaults}
      notice={notice}
      onNotice={setNotice}
      focusRequest={focusRequest}
      onSaved={() => {
        setNotice(t('defaults.saved'));
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
  focusRequest,
}: {
  scope: CourseScope;
  defaults: CourseDefaults;
  notice: string | null;
  onNotice: (notice: string | null) => void;
  onSaved: () => void;
  focusRequest: DefaultsFocusRequest | null;
}) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const { focus, announcement, formError, submission, start, refuse, refuseHere, withdraw } = useSaveOutcome('defaults', {
    saved: [notice, onNotice],
  });
  const schoolExitPassword = useSchoolExitPassword();
  // The link that opened the defaults left the screen with its tab; the focus goes to the field it asked to set.
  const focusField = focus.focus;
  // After the tabs have drawn the panel: a field of a panel still hidden takes no focus.
  useEffect(() => {
    if (focusRequest === null) return;
    const frame = window.requestAnimationFrame(() => focusField(rowKeyOf(focusRequest.key)));
    return () => window.cancelAnimationFrame(frame);
    // The rows are only read to find the requested rule; a later edit must not move the focus again.
  }, [focusRequest, focusField]);
  const [draft, setDraft] = useState<DefaultsDraft>(() => draftOf(defaults));
  /** A stored rule named by its value (`fieldKey.storedRule`) is the field of the row holding it. */
  const rowKeyOf = (key: string) => {
    const row = draft.ruleRows.find((candidate) => fieldKey.storedRule(candidate.value) === key);
    return row === undefined ? key : fieldKey.ruleValue(row.rowId);
  };
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
        // Effective settings of every assessment may have changed with the defaults, and so may the marked rules.
        void queryClient.invalidateQueries({ queryKey: trpc.instructor.enforcement.status.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.instructor.urlRules.readings.queryKey() });
        onSaved();
      },
      onError: refuse,
    }),
  );

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const setupRefusal = setupCompletionProblem({
      setupCompleted: draft.setupCompleted,
      exitPasswordAvailable:
        (defaults.hasQuitPassword && !draft.exit.remove) ||
        draft.exit.value !== '' ||
        // Refused only once it is known that the school set none: a teacher whose school did is never held up.
        schoolExitPassword.data?.set !== false,
    });
    if (setupRefusal !== null) {
      refuseHere(fieldKey.setupCompleted(), translatePolicyMessage(setupRefusal));
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
          {t('defaults.heading')}
        </Heading>
        <Text as="p" color="secondary">
          {t('defaults.intro', { course: scope.courseName })}
        </Text>

        <EditorSection
          id="defaults-websites-heading"
          section="urlRules"
          heading={t('websites.heading')}
          intro={t('websites.defaultsIntro')}
          alert={sectionError('urlRules')}
          focus={focus}
          margin="medium 0 large"
        >
          <UrlRulesEditor
            rows={draft.ruleRows}
            onChange={(ruleRows) => change({ ruleRows })}
            kind={{ group: 'courseWebsite' }}
            addLabel={t('websites.add')}
            error={formError}
            focus={focus}
            withdrawError={withdraw}
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
          intro={t('passwords.defaultsIntro')}
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
          subject={t('reveal.subjectCourse')}
          reveal={() => client.instructor.passwords.revealCourse.mutate({ courseId: scope.courseId })}
        />

        <View as="section" display="block" margin="0 0 large" aria-labelledby="defaults-setup-heading">
          <Heading level="h3" id="defaults-setup-heading" margin="0 0 x-small">
            {t('defaults.setupHeading')}
          </Heading>
          <Checkbox
            label={t('defaults.setupComplete')}
            checked={draft.setupCompleted}
            onChange={(event) => change({ setupCompleted: event.target.checked })}
            messages={
              messagesFor(formError, fieldKey.setupCompleted()) ?? [{ type: 'hint', text: t('defaults.setupHint') }]
            }
            inputRef={focus.register(fieldKey.setupCompleted())}
          />
        </View>

        <SaveOutcome subject="defaults" refusal={formError?.message ?? null} saved={notice} onDismiss={() => onNotice(null)} />
        <SaveBar label={t('defaults.save')} saving={save.isPending}>
          {dirty && (
            <Text size="small" color="secondary">
              {t('save.unsaved')}
            </Text>
          )}
        </SaveBar>
      </form>
      {/* Outside the form: saved on its own, at once, and never part of the defaults' unsaved changes. */}
      <AutoRepairToggle />
      {/* Outside the form: the dialog's buttons must never submit the defaults. */}
      {copying !== null && <CopyToolDialog scope={scope} tool={copying} onClose={() => setCopying(null)} />}
    </>
  );
}
