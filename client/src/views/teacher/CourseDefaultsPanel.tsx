import {
  Alert,
  Button,
  Checkbox,
  Flex,
  Heading,
  IconAddLine,
  IconCopyLine,
  IconEditLine,
  IconLockLine,
  IconTrashLine,
  Pill,
  ScreenReaderContent,
  Spinner,
  Text,
  View,
} from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useAnnouncer } from '../../components/Announcer';
import { SecretInput } from '../../components/SecretInput';
import { getLiveRegion } from '../../lib/live-region';
import { readServerError, useTRPC, useTRPCClient, type RouterInputs } from '../../lib/trpc';
import { useConnection } from './connection';
import { CopyToolDialog } from './CopyToolDialog';
import { fieldKey, locateError, messagesFor, useFieldFocus, type FieldFocus, type FormError, type Submission } from './form-errors';
import {
  emptyToolRow,
  hostOf,
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
import { PasswordReveal } from './PasswordReveal';
import { useCourseDefaults } from './queries';
import { SectionHeading } from './SectionHeading';
import { ToolFields } from './ToolFields';
import { UrlRulesEditor } from './UrlRulesEditor';

interface PasswordDraft {
  readonly value: string;
  readonly remove: boolean;
}

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

/** `undefined` keeps the stored password, `null` removes it, a string replaces it. */
function passwordInput(draft: PasswordDraft): string | null | undefined {
  if (draft.remove) return null;
  return draft.value === '' ? undefined : draft.value;
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
  const focus = useFieldFocus();
  const [announcement, announce] = useAnnouncer();
  const [draft, setDraft] = useState<DefaultsDraft>(() => draftOf(defaults));
  const [editing, setEditing] = useState<ReadonlySet<string>>(new Set());
  const [formError, setFormError] = useState<FormError | null>(null);
  const [dirty, setDirty] = useState(false);
  const [copying, setCopying] = useState<{ id: string; label: string } | null>(null);
  const submission = useRef<Submission>({});

  const change = (next: Partial<DefaultsDraft>) => {
    setDraft((current) => ({ ...current, ...next }));
    setDirty(true);
    onNotice(null);
  };

  const save = useMutation(
    trpc.instructor.courseDefaults.save.mutationOptions({
      onMutate: () => {
        setFormError(null);
        onNotice(null);
      },
      onSuccess: (result) => {
        queryClient.setQueryData(trpc.instructor.courseDefaults.get.queryKey({ courseId: scope.courseId }), {
          success: true as const,
          defaults: result.defaults,
        });
        // Effective settings of every assessment may have changed with the defaults.
        void queryClient.invalidateQueries({ queryKey: trpc.instructor.enforcement.status.queryKey() });
        onSaved(result.message);
      },
      onError: (error) => {
        const refusal = readServerError(error);
        if (refusal.authUrl !== undefined) return;
        const located = locateError(refusal, submission.current);
        setFormError(located);
        announce(`The course defaults were not saved. ${located.message}`, 'assertive');
        window.setTimeout(() => focus.focus(located.key), 0);
      },
    }),
  );

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
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
  const sectionError = (name: 'urlRules' | 'tools' | 'passwords') =>
    formError !== null && formError.key === fieldKey.section(name) ? (
      <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false} margin="0 0 small">
        {formError.message}
      </Alert>
    ) : null;

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

        <View as="section" display="block" margin="medium 0 large" aria-labelledby="defaults-websites-heading">
          <SectionHeading id="defaults-websites-heading" register={focus.register(fieldKey.section('urlRules'))}>
            Allowed websites
          </SectionHeading>
          <Text as="p" color="secondary">
            Pages or sites students may open during any exam of the course. The LMS itself is always allowed.
          </Text>
          {sectionError('urlRules')}
          <UrlRulesEditor
            rows={draft.ruleRows}
            onChange={(ruleRows) => change({ ruleRows })}
            rowNoun="Course website"
            addLabel="Add a website"
            error={formError}
            focus={focus}
          />
        </View>

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

        <View as="section" display="block" margin="0 0 large" aria-labelledby="defaults-passwords-heading">
          <SectionHeading id="defaults-passwords-heading" register={focus.register(fieldKey.section('passwords'))}>
            Passwords
          </SectionHeading>
          <Text as="p" color="secondary">
            Assessments without a password of their own use these. If the course has no exit password, the school’s
            default applies where your school set one.
          </Text>
          {sectionError('passwords')}
          <Flex gap="large" wrap="wrap" alignItems="start">
            <Flex.Item size="16rem" shouldGrow shouldShrink>
              <CoursePasswordField
                which="start"
                title="Start password"
                isSet={defaults.hasStartPassword}
                draft={draft.start}
                onChange={(start) => change({ start })}
                error={formError}
                focus={focus}
              />
            </Flex.Item>
            <Flex.Item size="16rem" shouldGrow shouldShrink>
              <CoursePasswordField
                which="quit"
                title="Exit password"
                isSet={defaults.hasQuitPassword}
                draft={draft.exit}
                onChange={(exit) => change({ exit })}
                error={formError}
                focus={focus}
              />
            </Flex.Item>
          </Flex>
          <View as="div" margin="medium 0 0">
            <PasswordReveal subject="the course" reveal={() => client.instructor.passwords.revealCourse.mutate({ courseId: scope.courseId })} />
          </View>
        </View>

        <View as="section" display="block" margin="0 0 large" aria-labelledby="defaults-setup-heading">
          <Heading level="h3" id="defaults-setup-heading" margin="0 0 x-small">
            Setup
          </Heading>
          <Checkbox
            label="The setup of this course is complete"
            checked={draft.setupCompleted}
            onChange={(event) => change({ setupCompleted: event.target.checked })}
            messages={[{ type: 'hint', text: 'Hides the setup reminder above the assessments.' }]}
          />
        </View>

        {formError !== null && (
          <Text as="p" color="danger">
            The course defaults were not saved: {formError.message}
          </Text>
        )}
        {notice !== null && (
          <Alert
            variant="success"
            variantScreenReaderLabel="Success,"
            hasShadow={false}
            margin="0 0 small"
            renderCloseButtonLabel="Dismiss"
            onDismiss={() => onNotice(null)}
            liveRegion={getLiveRegion}
          >
            {notice}
          </Alert>
        )}
        <View as="div" padding="small 0" borderWidth="small 0 0 0">
          <Flex gap="small" alignItems="center" wrap="wrap">
            <Button type="submit" color="primary">
              {save.isPending ? 'Saving…' : 'Save course defaults'}
            </Button>
            {dirty && (
              <Text size="small" color="secondary">
                Unsaved changes
              </Text>
            )}
          </Flex>
        </View>
      </form>
      {/* Outside the form: the dialog's buttons must never submit the defaults. */}
      {copying !== null && <CopyToolDialog scope={scope} tool={copying} onClose={() => setCopying(null)} />}
    </>
  );
}

function ToolCatalog({
  tools,
  savedToolIds,
  editing,
  setEditing,
  onChange,
  onCopy,
  error,
  focus,
  sectionError,
}: {
  tools: readonly ToolRow[];
  savedToolIds: ReadonlySet<string>;
  editing: ReadonlySet<string>;
  setEditing: (next: ReadonlySet<string>) => void;
  onChange: (tools: ToolRow[]) => void;
  onCopy: (tool: { id: string; label: string }) => void;
  error: FormError | null;
  focus: FieldFocus;
  sectionError: ReactNode;
}) {
  const connection = useConnection();
  const update = (rowId: string, change: Partial<ToolRow>) =>
    onChange(tools.map((tool) => (tool.rowId === rowId ? { ...tool, ...change } : tool)));
  const toggleEditing = (rowId: string, on: boolean) => {
    const next = new Set(editing);
    if (on) next.add(rowId);
    else next.delete(rowId);
    setEditing(next);
  };
  const add = () => {
    const tool = emptyToolRow();
    onChange([...tools, tool]);
    toggleEditing(tool.rowId, true);
    window.setTimeout(() => focus.focus(fieldKey.toolLabel(tool.rowId)), 0);
  };
  const errorIn = (tool: ToolRow) =>
    error?.key !== undefined &&
    (error.key.startsWith(`tool:${tool.rowId}:`) || tool.resourceRules.some((rule) => error.key?.startsWith(`rule:${rule.rowId}:`)));

  return (
    <View as="section" display="block" margin="0 0 large" aria-labelledby="defaults-tools-heading">
      <SectionHeading id="defaults-tools-heading" register={focus.register(fieldKey.section('tools'))}>
        Exam tools
      </SectionHeading>
      <Text as="p" color="secondary">
        Tools students may open from the exam browser. Tools your school manages can be switched on or off here but
        not changed.
      </Text>
      {sectionError}
      {tools.length === 0 && (
        <Text as="p" color="secondary">
          The course has no exam tools yet.
        </Text>
      )}
      {tools.map((tool, index) => {
        const name = tool.label.trim() || `New tool ${index + 1}`;
        const open = !tool.managedByAdmin && (editing.has(tool.rowId) || errorIn(tool));
        const saved = tool.id !== undefined && savedToolIds.has(tool.id);
        const ruleCount = tool.resourceRules.filter((rule) => rule.value.trim() !== '').length;
        return (
          <View
            key={tool.rowId}
            as="div"
            role="group"
            aria-label={name}
            padding="small"
            margin="0 0 small"
            borderWidth="small"
            borderRadius="medium"
            background={tool.enabled ? 'primary' : 'secondary'}
          >
            <Flex gap="small" wrap="wrap" alignItems="start" justifyItems="space-between">
              <Flex.Item shouldGrow shouldShrink size="14rem">
                <Flex gap="x-small" alignItems="center" wrap="wrap">
                  {tool.managedByAdmin && <IconLockLine />}
                  <Text weight="bold">{name}</Text>
                  {tool.managedByAdmin && <Pill>School-managed</Pill>}
                  {!saved && <Pill color="info">Not saved yet</Pill>}
                </Flex>
                <Text as="div" size="small" color="secondary">
                  {tool.url.trim() === '' ? 'No launch address yet' : hostOf(tool.url)}
                  {ruleCount > 0 ? ` · ${ruleCount} more website${ruleCount === 1 ? '' : 's'}` : ''}
                </Text>
              </Flex.Item>
              <Flex.Item>
                <Checkbox
                  variant="toggle"
                  size="small"
                  labelPlacement="start"
                  label={
                    <>
                      Available in exams<ScreenReaderContent>: {name}</ScreenReaderContent>
                    </>
                  }
                  checked={tool.enabled}
                  onChange={(event) => update(tool.rowId, { enabled: event.target.checked })}
                />
              </Flex.Item>
            </Flex>
            {tool.managedByAdmin ? (
              <Text as="p" size="small" color="secondary">
                Managed by your school: only switching it on or off is possible here.
              </Text>
            ) : (
              <Flex gap="x-small" wrap="wrap" margin="x-small 0 0">
                <Button size="small" renderIcon={<IconEditLine />} onClick={() => toggleEditing(tool.rowId, !open)} aria-expanded={open}>
                  {open ? 'Done' : 'Edit'}
                  <ScreenReaderContent> {name}</ScreenReaderContent>
                </Button>
                {saved && tool.id !== undefined && (
                  <Button
                    size="small"
                    renderIcon={<IconCopyLine />}
                    onClick={() => onCopy({ id: tool.id!, label: tool.label })}
                    interaction={connection.connected === false ? 'disabled' : 'enabled'}
                  >
                    Copy to other courses
                    <ScreenReaderContent> ({name})</ScreenReaderContent>
                  </Button>
                )}
                <Button
                  size="small"
                  renderIcon={<IconTrashLine />}
                  onClick={() => {
                    onChange(tools.filter((row) => row.rowId !== tool.rowId));
                    focus.focus(fieldKey.section('tools'));
                  }}
                >
                  Remove
                  <ScreenReaderContent> {name}</ScreenReaderContent>
                </Button>
              </Flex>
            )}
            {open && (
              <View as="div" margin="small 0 0">
                <ToolFields tool={tool} onChange={(change) => update(tool.rowId, change)} error={error} focus={focus} />
              </View>
            )}
          </View>
        );
      })}
      <Button renderIcon={<IconAddLine />} onClick={add}>
        Add a tool
      </Button>
    </View>
  );
}

function CoursePasswordField({
  which,
  title,
  isSet,
  draft,
  onChange,
  error,
  focus,
}: {
  which: 'start' | 'quit';
  title: string;
  isSet: boolean;
  draft: PasswordDraft;
  onChange: (draft: PasswordDraft) => void;
  error: FormError | null;
  focus: FieldFocus;
}) {
  const key = fieldKey.password(which);
  return (
    <View as="div">
      <Flex gap="x-small" alignItems="center" margin="0 0 x-small">
        <Text weight="bold">{title}</Text>
        <Pill color={isSet ? 'success' : undefined}>{isSet ? 'Set' : 'Not set'}</Pill>
      </Flex>
      <SecretInput
        label={isSet ? `New ${title.toLowerCase()}` : `Set ${which === 'quit' ? 'an' : 'a'} ${title.toLowerCase()}`}
        name={title.toLowerCase()}
        value={draft.value}
        onChange={(value) => onChange({ ...draft, value })}
        disabled={draft.remove}
        maxLength={128}
        messages={
          messagesFor(error, key) ?? [
            { type: 'hint', text: isSet ? 'Leave empty to keep the current one.' : 'Printable ASCII characters only.' },
          ]
        }
        inputRef={focus.register(key)}
      />
      {isSet && (
        <View as="div" margin="x-small 0 0">
          <Checkbox
            label={`Remove the course ${title.toLowerCase()}`}
            checked={draft.remove}
            onChange={(event) => onChange({ value: '', remove: event.target.checked })}
            size="small"
          />
        </View>
      )}
    </View>
  );
}
