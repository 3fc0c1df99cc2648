import {
  Alert,
  Button,
  Checkbox,
  CheckboxGroup,
  Flex,
  Heading,
  IconAddLine,
  IconArrowOpenStartLine,
  IconResetLine,
  IconTrashLine,
  Link,
  RadioInput,
  RadioInputGroup,
  ScreenReaderContent,
  Spinner,
  Text,
  View,
} from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useAnnouncer } from '../../components/Announcer';
import { DefinitionList } from '../../components/DefinitionList';
import { FocusTarget } from '../../components/FocusTarget';
import { SecretInput } from '../../components/SecretInput';
import { getLiveRegion } from '../../lib/live-region';
import { readServerError, useTRPC, useTRPCClient, type RouterInputs } from '../../lib/trpc';
import { EnforcementToggle, isEnforced, StatusBadges } from './Enforcement';
import { fieldKey, locateError, messagesFor, useFieldFocus, type FieldFocus, type FormError, type Submission } from './form-errors';
import {
  CONTENT_TYPE_LABEL,
  emptyToolRow,
  isBlankTool,
  newRowId,
  ruleRowsOf,
  submitRules,
  submitTool,
  type Assessment,
  type AssessmentSetting,
  type AssessmentStatus,
  type CourseDefaults,
  type CourseScope,
  type RuleRow,
  type ToolRow,
} from './model';
import { PasswordReveal } from './PasswordReveal';
import { useCourseDefaults, useSettingWriter } from './queries';
import { SectionHeading } from './SectionHeading';
import { ToolFields } from './ToolFields';
import { UrlRulesEditor } from './UrlRulesEditor';

type PasswordMode = 'keep' | 'course' | 'own';

interface PasswordChoice {
  readonly mode: PasswordMode;
  readonly value: string;
}

interface PolicyDraft {
  readonly urlMode: 'course' | 'own';
  readonly ruleRows: readonly RuleRow[];
  /** The rows are the assessment's saved rules (or a starting point the teacher chose), not an unknown list. */
  readonly rulesKnown: boolean;
  readonly toolMode: 'all' | 'selected';
  readonly selectedToolIds: readonly string[];
  readonly quizTools: readonly ToolRow[];
  readonly start: PasswordChoice;
  readonly exit: PasswordChoice;
}

type Touched = 'rules' | 'tools' | 'quizTools';

type SavedPolicy = Pick<PolicyDraft, 'ruleRows' | 'toolMode' | 'selectedToolIds' | 'quizTools'>;

/**
 * What this page last saved per assessment (content id). The server answers a save without the policy itself and
 * shows a stored policy only as its effect, so reopening an assessment in the same page starts from this instead.
 */
const savedPolicies = new Map<string, SavedPolicy>();

/**
 * The starting point of the form. The server shows an assessment's policy only as its effect (the status view: hosts
 * and approved tools), so what it does not show is left as it is unless the teacher edits that part.
 */
function initialDraft(
  setting: AssessmentSetting,
  status: AssessmentStatus,
  catalog: CourseDefaults['externalTools'],
  saved: SavedPolicy | undefined,
): PolicyDraft {
  const passwords = { start: { mode: 'keep' as const, value: '' }, exit: { mode: 'keep' as const, value: '' } };
  if (saved !== undefined) {
    return { urlMode: setting.usesCourseDefaults ? 'course' : 'own', rulesKnown: true, ...saved, ...passwords };
  }
  const catalogIds = new Set(catalog.map((tool) => tool.id));
  const approvedCourseIds = status.externalTools.filter((tool) => catalogIds.has(tool.id)).map((tool) => tool.id);
  const enabledCount = catalog.filter((tool) => tool.enabled).length;
  const quizTools: ToolRow[] = status.externalTools
    .filter((tool) => !catalogIds.has(tool.id))
    .map((tool) => ({
      rowId: newRowId('tool'),
      id: tool.id,
      label: tool.label,
      url: tool.url,
      enabled: true,
      managedByAdmin: false,
      resourceRules: [],
      resourceRulesUnknown: true,
    }));
  return {
    urlMode: setting.usesCourseDefaults ? 'course' : 'own',
    ruleRows: [],
    rulesKnown: false,
    toolMode: approvedCourseIds.length === enabledCount ? 'all' : 'selected',
    selectedToolIds: approvedCourseIds,
    quizTools,
    ...passwords,
  };
}

/** One assessment's exam settings: enforcement, allowed websites, tools and passwords. */
export function PolicyEditor({
  scope,
  assessment,
  setting,
  onClose,
  onOpenCourseDefaults,
}: {
  scope: CourseScope;
  assessment: Assessment;
  setting: AssessmentSetting;
  onClose: () => void;
  onOpenCourseDefaults: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const statusInput = { courseId: scope.courseId, quizId: assessment.id };
  const statusKey = trpc.instructor.enforcement.status.queryKey(statusInput);
  const status = useQuery(trpc.instructor.enforcement.status.queryOptions(statusInput));
  const defaults = useCourseDefaults(scope);
  const headingRef = useRef<HTMLElement | null>(null);
  // A reset replaces the stored policy; a new form instance starts again from what the server then shows.
  const [formVersion, setFormVersion] = useState(0);

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  const ready = status.data !== undefined && defaults.data !== undefined;
  const headingId = `policy-heading-${assessment.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;

  return (
    <View as="section" display="block" aria-labelledby={headingId}>
      <Link as="button" onClick={onClose} renderIcon={<IconArrowOpenStartLine />} isWithinText={false} margin="0 0 small">
        All assessments
      </Link>
      <FocusTarget focusRef={(element) => void (headingRef.current = element)}>
        <Heading level="h2" id={headingId}>
          {assessment.title}
        </Heading>
      </FocusTarget>
      <Flex gap="small" alignItems="center" wrap="wrap" margin="x-small 0 medium">
        <Text color="secondary">
          {CONTENT_TYPE_LABEL[assessment.contentType]} · {assessment.published ? 'Published' : 'Unpublished'}
        </Text>
        <StatusBadges setting={setting} />
      </Flex>

      <EnforcementSection scope={scope} assessment={assessment} setting={setting} onOpenCourseDefaults={onOpenCourseDefaults} />

      {!ready ? (
        status.isError || defaults.isError ? (
          <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
            The settings could not be loaded: {readServerError(status.error ?? defaults.error).message}
          </Alert>
        ) : (
          <View as="div" textAlign="center" padding="large">
            <Spinner renderTitle="Loading the exam settings" size="small" />
          </View>
        )
      ) : (
        <PolicyForm
          key={formVersion}
          scope={scope}
          assessment={assessment}
          setting={setting}
          status={status.data}
          defaults={defaults.data.defaults}
          saved={savedPolicies.get(assessment.id)}
          onClose={onClose}
          onReset={() => {
            savedPolicies.delete(assessment.id);
            // The new form starts from what the server shows after the reset, not from the answer before it.
            void queryClient.refetchQueries({ queryKey: statusKey }).then(() => {
              setFormVersion((version) => version + 1);
              // The form the reset button was in is replaced; the top of the editor is where to continue.
              headingRef.current?.focus();
            });
          }}
          onOpenCourseDefaults={onOpenCourseDefaults}
        />
      )}
    </View>
  );
}

function EnforcementSection({
  scope,
  assessment,
  setting,
  onOpenCourseDefaults,
}: {
  scope: CourseScope;
  assessment: Assessment;
  setting: AssessmentSetting;
  onOpenCourseDefaults: () => void;
}) {
  const trpc = useTRPC();
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<{ variant: 'success' | 'error'; text: string } | null>(null);
  const confirmButton = useRef<HTMLElement | null>(null);
  const startButton = useRef<HTMLElement | null>(null);
  const answered = useRef(false);
  useEffect(() => {
    // The question replaces the button that asked it, and the other way round: focus follows.
    if (confirming) confirmButton.current?.focus();
    else if (answered.current) startButton.current?.focus();
  }, [confirming]);
  const closeQuestion = () => {
    answered.current = true;
    setConfirming(false);
  };
  const regenerate = useMutation(
    trpc.instructor.enforcement.regenerateCode.mutationOptions({
      onSuccess: (result) => setOutcome({ variant: 'success', text: result.message }),
      onError: (error) => {
        const refusal = readServerError(error);
        if (refusal.authUrl === undefined) setOutcome({ variant: 'error', text: refusal.message });
      },
      onSettled: closeQuestion,
    }),
  );
  return (
    <View as="div" padding="small medium" margin="0 0 medium" borderWidth="small" borderRadius="medium">
      <Flex gap="medium" alignItems="center" wrap="wrap" justifyItems="space-between">
        <EnforcementToggle assessment={assessment} setting={setting} onOpenCourseDefaults={onOpenCourseDefaults} visibleLabel />
        {isEnforced(setting) && !confirming && (
          <Button size="small" onClick={() => setConfirming(true)} elementRef={(element) => void (startButton.current = element as HTMLElement | null)}>
            Replace the access code
          </Button>
        )}
      </Flex>
      {confirming && (
        <View as="div" margin="small 0 0">
          <Text as="p">
            The current access code stops working at once; students who already downloaded a configuration need to
            download a new one.
          </Text>
          <Flex gap="small">
            <Button
              color="danger"
              size="small"
              onClick={() => {
                if (!regenerate.isPending) regenerate.mutate({ courseId: scope.courseId, quizId: assessment.id });
              }}
              elementRef={(element) => void (confirmButton.current = element as HTMLElement | null)}
            >
              {regenerate.isPending ? 'Replacing…' : 'Replace it now'}
            </Button>
            <Button size="small" onClick={closeQuestion}>
              Keep the current code
            </Button>
          </Flex>
        </View>
      )}
      {outcome !== null && (
        <Alert
          variant={outcome.variant}
          hasShadow={false}
          margin="small 0 0"
          liveRegion={getLiveRegion}
          renderCloseButtonLabel="Dismiss"
          onDismiss={() => setOutcome(null)}
        >
          {outcome.text}
        </Alert>
      )}
    </View>
  );
}

function PolicyForm({
  scope,
  assessment,
  setting,
  status,
  defaults,
  saved,
  onClose,
  onReset,
  onOpenCourseDefaults,
}: {
  scope: CourseScope;
  assessment: Assessment;
  setting: AssessmentSetting;
  status: AssessmentStatus;
  defaults: CourseDefaults;
  saved: SavedPolicy | undefined;
  onClose: () => void;
  onReset: () => void;
  onOpenCourseDefaults: () => void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const writeSetting = useSettingWriter();
  const focus = useFieldFocus();
  const [announcement, announce] = useAnnouncer();
  const [draft, setDraft] = useState<PolicyDraft>(() => initialDraft(setting, status, defaults.externalTools, saved));
  const [touched, setTouched] = useState<ReadonlySet<Touched>>(new Set());
  const [formError, setFormError] = useState<FormError | null>(null);
  const [savedMessage, setSavedMessage] = useState<string | null>(null);
  const [confirmReset, setConfirmReset] = useState(false);
  const submission = useRef<Submission>({});
  const resetQuestion = useRef<HTMLElement | null>(null);
  const resetStart = useRef<HTMLElement | null>(null);
  const resetAnswered = useRef(false);
  useEffect(() => {
    if (confirmReset) resetQuestion.current?.focus();
    else if (resetAnswered.current) resetStart.current?.focus();
  }, [confirmReset]);

  const change = (next: Partial<PolicyDraft>, part?: Touched) => {
    setDraft((current) => ({ ...current, ...next }));
    if (part !== undefined) setTouched((current) => new Set(current).add(part));
    setSavedMessage(null);
  };

  const save = useMutation(
    trpc.instructor.policy.saveStructured.mutationOptions({
      onMutate: () => {
        setFormError(null);
        setSavedMessage(null);
      },
      onSuccess: (result) => {
        writeSetting(assessment.id, result.setting);
        savedPolicies.set(assessment.id, {
          ruleRows: draft.ruleRows,
          toolMode: draft.toolMode,
          selectedToolIds: draft.selectedToolIds,
          quizTools: draft.quizTools.map((tool) => ({ ...tool, resourceRulesUnknown: false })),
        });
        setDraft((current) => ({
          ...current,
          rulesKnown: current.rulesKnown || touched.has('rules'),
          start: { mode: 'keep', value: '' },
          exit: { mode: 'keep', value: '' },
        }));
        setTouched(new Set());
        setSavedMessage(result.message);
      },
      onError: (error) => {
        const refusal = readServerError(error);
        if (refusal.authUrl !== undefined) return;
        const located = locateError(refusal, submission.current, 'quizTools');
        setFormError(located);
        announce(`The settings were not saved. ${located.message}`, 'assertive');
        window.setTimeout(() => focus.focus(located.key), 0);
      },
    }),
  );

  const reset = useMutation(
    trpc.instructor.enforcement.resetDefaults.mutationOptions({
      onSuccess: (result) => {
        writeSetting(assessment.id, result.setting);
        announce(result.message);
        onReset();
      },
      onError: (error) => {
        const refusal = readServerError(error);
        if (refusal.authUrl === undefined) setFormError({ key: undefined, message: refusal.message, errorCode: refusal.errorCode });
      },
    }),
  );

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const input: RouterInputs['instructor']['policy']['saveStructured'] = {
      userId: scope.lmsUserId,
      ...(assessment.contentType === 'NEW_QUIZ' ? { contentId: assessment.id } : { quizId: assessment.id }),
      usesCourseDefaults: draft.urlMode === 'course',
    };
    const next: { -readonly [K in keyof Submission]: Submission[K] } = {};
    if (draft.urlMode === 'own' && (draft.rulesKnown || touched.has('rules'))) {
      const { rules, rowIds } = submitRules(draft.ruleRows);
      input.urlRules = rules;
      next.urlRules = rowIds;
    }
    if (touched.has('tools')) input.externalToolIds = draft.toolMode === 'all' ? null : [...draft.selectedToolIds];
    if (touched.has('quizTools')) {
      const tools = draft.quizTools.filter((tool) => !isBlankTool(tool)).map(submitTool);
      input.quizOnlyExternalTools = tools.map((tool) => tool.tool);
      next.toolLists = { quizOnlyExternalTools: tools };
    }
    if (draft.start.mode !== 'keep') {
      input.startPasswordOverride = draft.start.mode === 'own';
      if (draft.start.mode === 'own') input.startPassword = draft.start.value === '' ? null : draft.start.value;
    }
    if (draft.exit.mode !== 'keep') {
      input.quitPasswordOverride = draft.exit.mode === 'own';
      if (draft.exit.mode === 'own') input.quitPassword = draft.exit.value === '' ? null : draft.exit.value;
    }
    submission.current = next;
    save.mutate(input);
  };

  const sectionError = (name: Parameters<typeof fieldKey.section>[0]) =>
    formError !== null && formError.key === fieldKey.section(name) ? (
      <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false} margin="0 0 small">
        {formError.message}
      </Alert>
    ) : null;

  return (
    <form onSubmit={handleSubmit} noValidate aria-label={`Exam settings of ${assessment.title}`}>
      {announcement}
      <WebsitesSection
        draft={draft}
        defaults={defaults}
        status={status}
        onChange={change}
        error={formError}
        focus={focus}
        sectionError={sectionError('urlRules')}
      />
      <ToolsSection
        draft={draft}
        defaults={defaults}
        touched={touched}
        onChange={change}
        error={formError}
        focus={focus}
        selectionError={sectionError('toolSelection')}
        quizToolsError={sectionError('quizTools') ?? sectionError('tools')}
        onOpenCourseDefaults={onOpenCourseDefaults}
      />
      <View as="section" display="block" margin="0 0 large" aria-labelledby="assessment-passwords-heading">
        <SectionHeading id="assessment-passwords-heading" register={focus.register(fieldKey.section('passwords'))}>
          Passwords
        </SectionHeading>
        <Text as="p" color="secondary">
          Students type the start password to begin the exam in the exam browser; the exit password lets them (or a
          proctor) leave it. Without an exit password, the exam browser cannot be required.
        </Text>
        <Flex gap="large" wrap="wrap" alignItems="start">
          <Flex.Item size="16rem" shouldGrow shouldShrink>
            <PasswordChoiceFields
              which="start"
              name={`start-password-${assessment.id}`}
              choice={draft.start}
              onChange={(start) => change({ start })}
              error={formError}
              focus={focus}
            />
          </Flex.Item>
          <Flex.Item size="16rem" shouldGrow shouldShrink>
            <PasswordChoiceFields
              which="quit"
              name={`exit-password-${assessment.id}`}
              choice={draft.exit}
              onChange={(exit) => change({ exit })}
              error={formError}
              focus={focus}
            />
          </Flex.Item>
        </Flex>
        <View as="div" margin="medium 0 0">
          <PasswordReveal
            subject="this assessment"
            reveal={() => client.instructor.passwords.revealAssessment.mutate({ courseId: scope.courseId, quizId: assessment.id })}
          />
        </View>
      </View>
      <EffectiveSummary status={status} />

      {formError !== null && formError.key === undefined && (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false} margin="0 0 small">
          {formError.message}
        </Alert>
      )}
      {formError !== null && formError.key !== undefined && (
        <Text as="p" color="danger">
          The settings were not saved: {formError.message}
        </Text>
      )}
      {savedMessage !== null && (
        <Alert variant="success" variantScreenReaderLabel="Success," hasShadow={false} margin="0 0 small" liveRegion={getLiveRegion}>
          {savedMessage}
        </Alert>
      )}
      <View as="div" padding="small 0" borderWidth="small 0 0 0">
        <Flex gap="small" wrap="wrap" justifyItems="space-between" alignItems="center">
          <Flex gap="small" wrap="wrap">
            {/* Stays enabled while saving, so the focus stays on it; a second press is ignored. */}
            <Button type="submit" color="primary">
              {save.isPending ? 'Saving…' : 'Save settings'}
            </Button>
            <Button onClick={onClose}>Back to assessments</Button>
          </Flex>
          {!confirmReset ? (
            <Button
              renderIcon={<IconResetLine />}
              withBackground={false}
              onClick={() => setConfirmReset(true)}
              elementRef={(element) => void (resetStart.current = element as HTMLElement | null)}
            >
              Reset to course defaults
            </Button>
          ) : (
            <Flex gap="small" alignItems="center" wrap="wrap">
              <Text size="small">Clear this assessment’s websites, tools and passwords?</Text>
              <Button
                size="small"
                color="danger"
                onClick={() => {
                  if (!reset.isPending) reset.mutate({ courseId: scope.courseId, quizId: assessment.id });
                }}
                elementRef={(element) => void (resetQuestion.current = element as HTMLElement | null)}
              >
                {reset.isPending ? 'Resetting…' : 'Reset'}
              </Button>
              <Button
                size="small"
                onClick={() => {
                  resetAnswered.current = true;
                  setConfirmReset(false);
                }}
              >
                Cancel
              </Button>
            </Flex>
          )}
        </Flex>
      </View>
    </form>
  );
}

function WebsitesSection({
  draft,
  defaults,
  status,
  onChange,
  error,
  focus,
  sectionError,
}: {
  draft: PolicyDraft;
  defaults: CourseDefaults;
  status: AssessmentStatus;
  onChange: (next: Partial<PolicyDraft>, part?: Touched) => void;
  error: FormError | null;
  focus: FieldFocus;
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
    <View as="section" display="block" margin="0 0 large" aria-labelledby="websites-heading">
      <SectionHeading id="websites-heading" register={focus.register(fieldKey.section('urlRules'))}>
        Allowed websites
      </SectionHeading>
      <Text as="p" color="secondary">
        The exam browser always allows the LMS itself. Add the other pages or sites students may open during this
        exam.
      </Text>
      {sectionError}
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
    </View>
  );
}

function ToolsSection({
  draft,
  defaults,
  touched,
  onChange,
  error,
  focus,
  selectionError,
  quizToolsError,
  onOpenCourseDefaults,
}: {
  draft: PolicyDraft;
  defaults: CourseDefaults;
  touched: ReadonlySet<Touched>;
  onChange: (next: Partial<PolicyDraft>, part?: Touched) => void;
  error: FormError | null;
  focus: FieldFocus;
  selectionError: ReactNode;
  quizToolsError: ReactNode;
  onOpenCourseDefaults: () => void;
}) {
  const catalog = defaults.externalTools;
  const updateTool = (rowId: string, changeOf: Partial<ToolRow>) =>
    onChange({ quizTools: draft.quizTools.map((tool) => (tool.rowId === rowId ? { ...tool, ...changeOf } : tool)) }, 'quizTools');
  const addTool = () => {
    const tool = emptyToolRow();
    onChange({ quizTools: [...draft.quizTools, tool] }, 'quizTools');
    window.setTimeout(() => focus.focus(fieldKey.toolLabel(tool.rowId)), 0);
  };
  const lossWarning = touched.has('quizTools') && draft.quizTools.some((tool) => tool.resourceRulesUnknown === true);

  return (
    <View as="section" display="block" margin="0 0 large" aria-labelledby="tools-heading">
      <SectionHeading id="tools-heading" register={focus.register(fieldKey.section('toolSelection'))}>
        Approved tools
      </SectionHeading>
      <Text as="p" color="secondary">
        Tools students may open from the exam browser’s tool list, such as a calculator or a dictionary.
      </Text>
      {selectionError}
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
            <View
              key={tool.rowId}
              as="div"
              role="group"
              aria-label={`Assessment tool ${index + 1}`}
              padding="small"
              margin="0 0 small"
              borderWidth="small"
              borderRadius="medium"
            >
              <ToolFields tool={tool} onChange={(changeOf) => updateTool(tool.rowId, changeOf)} error={error} focus={focus} />
              <Button
                size="small"
                margin="small 0 0"
                renderIcon={<IconTrashLine />}
                onClick={() => {
                  onChange({ quizTools: draft.quizTools.filter((row) => row.rowId !== tool.rowId) }, 'quizTools');
                  focus.focus(fieldKey.section('quizTools'));
                }}
              >
                Remove
                <ScreenReaderContent> {tool.label || `assessment tool ${index + 1}`}</ScreenReaderContent>
              </Button>
            </View>
          ))
        )}
        <Button renderIcon={<IconAddLine />} onClick={addTool}>
          Add a tool for this assessment
        </Button>
      </View>
    </View>
  );
}

const PASSWORD_TEXT = {
  start: { title: 'Start password', own: 'Start password for this assessment' },
  quit: { title: 'Exit password', own: 'Exit password for this assessment' },
} as const;

function PasswordChoiceFields({
  which,
  name,
  choice,
  onChange,
  error,
  focus,
}: {
  which: 'start' | 'quit';
  name: string;
  choice: PasswordChoice;
  onChange: (choice: PasswordChoice) => void;
  error: FormError | null;
  focus: FieldFocus;
}) {
  const text = PASSWORD_TEXT[which];
  const key = fieldKey.password(which);
  return (
    <View as="div">
      <RadioInputGroup
        name={name}
        description={text.title}
        value={choice.mode}
        onChange={(_event, value) => onChange({ ...choice, mode: value as PasswordMode })}
        size="small"
      >
        <RadioInput value="keep" label="Keep as it is" />
        <RadioInput value="course" label="Use the course default" />
        <RadioInput value="own" label="Set one for this assessment" />
      </RadioInputGroup>
      {choice.mode === 'own' && (
        <View as="div" margin="small 0 0">
          <SecretInput
            label={text.own}
            name={text.own.toLowerCase()}
            value={choice.value}
            onChange={(value) => onChange({ ...choice, value })}
            maxLength={128}
            messages={
              messagesFor(error, key) ?? [{ type: 'hint', text: 'Printable ASCII only. Leave empty to keep the one already set here.' }]
            }
            inputRef={focus.register(key)}
          />
        </View>
      )}
    </View>
  );
}

function EffectiveSummary({ status }: { status: AssessmentStatus }) {
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
