import { Alert, Button, Text } from '@instructure/ui';
import { ownPasswordProblem } from '@exb/shared/exb-policy.js';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { translatePolicyMessage, useTRPC, useTRPCClient } from '../../lib/trpc';
import { AssessmentTools } from './AssessmentTools';
import { AssessmentWebsites } from './AssessmentWebsites';
import { sectionError as sectionAlert } from './EditorSection';
import { EffectiveSummary } from './EffectiveSummary';
import { fieldKey, type SectionName } from '../../lib/form-errors';
import type { Assessment, AssessmentSetting, AssessmentStatus, CourseDefaults, CourseScope } from './model';
import { PasswordChoiceFields } from './PasswordFields';
import { PasswordsSection } from './PasswordsSection';
import {
  hasChanges,
  initialDraft,
  saveInput,
  savedPolicies,
  settledDraft,
  type PolicyDraft,
  type PolicySectionProps,
  type SavedPolicy,
  type Touched,
} from './policy-draft';
import { useSettingWriter } from './queries';
import { useUrlRuleReadingsRefetch } from './UrlRuleReadings';
import { ResetToCourseDefaults } from './ResetToCourseDefaults';
import { SaveBar, SaveOutcome } from './SaveBar';
import { useSaveOutcome } from './save-outcome';

/** The form of one assessment's websites, tools and passwords, started from what the page knows of them. */
export function PolicyForm({
  scope,
  assessment,
  setting,
  status,
  defaults,
  saved,
  onClose,
  onReset,
  onDiscard,
  onDirtyChange,
  onOpenCourseDefaults,
  focusRule = null,
}: {
  scope: CourseScope;
  assessment: Assessment;
  setting: AssessmentSetting;
  status: AssessmentStatus;
  defaults: CourseDefaults;
  saved: SavedPolicy | undefined;
  onClose: () => void;
  onReset: () => void;
  /** Starts the form again from what is saved. */
  onDiscard: () => void;
  /** Told whenever the form starts or stops holding changes that are not saved. */
  onDirtyChange: (dirty: boolean) => void;
  onOpenCourseDefaults: (field?: string) => void;
  /** The stored value of an own rule whose field takes the focus once the form shows. */
  focusRule?: string | null;
}) {
  const { t } = useTranslation(['teacher', 'common']);
  const trpc = useTRPC();
  const refetchRuleReadings = useUrlRuleReadingsRefetch();
  const client = useTRPCClient();
  const writeSetting = useSettingWriter();
  const outcome = useSaveOutcome('settings', { fallbackSection: 'quizTools' });
  const { focus, formError, setFormError, submission } = outcome;
  const [draft, setDraft] = useState<PolicyDraft>(() => initialDraft(setting, status, defaults.externalTools, saved));
  // The draft as last loaded or saved: the form holds unsaved changes while the draft differs from it.
  const [savedDraft, setSavedDraft] = useState<PolicyDraft>(draft);
  const [touched, setTouched] = useState<ReadonlySet<Touched>>(new Set());
  /** The draft and changed parts a pending save sent: what is stored once it succeeds. */
  const sent = useRef<{ draft: PolicyDraft; touched: ReadonlySet<Touched> } | null>(null);
  const dirty = hasChanges(draft, savedDraft);
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);
  // Opened at a marked rule: its field takes the focus from the editor's heading once the form has drawn. The form
  // knows an assessment's saved rules only as hosts until they are replaced, so then the websites section does.
  const focusField = focus.focus;
  const focusRow = focusRule === null ? undefined : draft.ruleRows.find((row) => row.value === focusRule);
  const focusKey = focusRule === null ? null : focusRow === undefined ? fieldKey.section('urlRules') : fieldKey.ruleValue(focusRow.rowId);
  useEffect(() => {
    if (focusKey === null) return;
    const frame = window.requestAnimationFrame(() => focusField(focusKey));
    return () => window.cancelAnimationFrame(frame);
  }, [focusKey, focusField]);

  const change = (next: Partial<PolicyDraft>, part?: Touched) => {
    setDraft((current) => ({ ...current, ...next }));
    if (part !== undefined) setTouched((current) => new Set(current).add(part));
    outcome.setSaved(null);
  };

  const save = useMutation(
    trpc.instructor.policy.saveStructured.mutationOptions({
      onMutate: outcome.start,
      onSuccess: (result) => {
        writeSetting(assessment.id, result.setting);
        refetchRuleReadings();
        const stored = sent.current ?? { draft, touched };
        savedPolicies.set(assessment.id, {
          ruleRows: stored.draft.ruleRows,
          toolMode: stored.draft.toolMode,
          selectedToolIds: stored.draft.selectedToolIds,
          quizTools: stored.draft.quizTools.map((tool) => ({ ...tool, resourceRulesUnknown: false })),
        });
        setSavedDraft(settledDraft(stored.draft, stored.touched));
        // Changes made while the save was under way stay in the draft, still unsaved.
        setDraft((current) => settledDraft(current, stored.touched));
        setTouched(new Set());
        outcome.setSaved(t('editor.saved'));
      },
      onError: outcome.refuse,
    }),
  );

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    // Choosing a password of its own means entering one; the request would otherwise keep the old one unannounced.
    for (const [which, choice] of [['start', draft.start], ['exit', draft.exit]] as const) {
      const refusal = choice.mode === 'own' ? ownPasswordProblem(which, choice.value) : null;
      if (refusal !== null) {
        outcome.refuseHere(fieldKey.password(which === 'start' ? 'start' : 'quit'), translatePolicyMessage(refusal));
        return;
      }
    }
    const { input, submission: sentPaths } = saveInput(draft, touched, scope, assessment);
    submission.current = sentPaths;
    sent.current = { draft, touched };
    save.mutate(input);
  };

  const sectionError = (name: SectionName) => sectionAlert(formError, name);
  const section: PolicySectionProps = { draft, onChange: change, error: formError, focus, withdrawError: outcome.withdraw };

  return (
    <form onSubmit={handleSubmit} noValidate aria-label={t('editor.formLabel', { title: assessment.title })}>
      {outcome.announcement}
      <AssessmentWebsites {...section} defaults={defaults} status={status} sectionError={sectionError('urlRules')} />
      <AssessmentTools
        {...section}
        defaults={defaults}
        touched={touched}
        selectionError={sectionError('toolSelection')}
        quizToolsError={sectionError('quizTools') ?? sectionError('tools')}
        onOpenCourseDefaults={onOpenCourseDefaults}
      />
      <PasswordsSection
        id="assessment-passwords-heading"
        intro={t('editor.passwordsIntro')}
        focus={focus}
        field={(which) => (
          <PasswordChoiceFields
            which={which}
            name={`${which === 'start' ? 'start' : 'exit'}-password-${assessment.id}`}
            choice={which === 'start' ? draft.start : draft.exit}
            onChange={(choice) => change(which === 'start' ? { start: choice } : { exit: choice })}
            error={formError}
            focus={focus}
          />
        )}
        subject={t('reveal.subjectAssessment')}
        reveal={() => client.instructor.passwords.revealAssessment.mutate({ courseId: scope.courseId, quizId: assessment.id })}
      />
      <EffectiveSummary status={status} />

      {/* A refusal without a field or section to stand next to (a failed reset) is said here only. */}
      {formError !== null && formError.key === undefined && (
        <Alert variant="error" variantScreenReaderLabel={t('common:variant.error')} hasShadow={false} margin="0 0 small">
          {formError.message}
        </Alert>
      )}
      <SaveOutcome
        subject="settings"
        refusal={formError !== null && formError.key !== undefined ? formError.message : null}
        saved={outcome.saved}
      />
      <SaveBar
        label={t('editor.save')}
        saving={save.isPending}
        end={<ResetToCourseDefaults scope={scope} assessment={assessment} announce={outcome.announce} onError={setFormError} onReset={onReset} />}
      >
        <Button onClick={onClose}>{t('editor.back')}</Button>
        {dirty && (
          <>
            <Button withBackground={false} onClick={onDiscard}>
              {t('editor.discard')}
            </Button>
            <Text size="small" color="secondary">
              {t('save.unsaved')}
            </Text>
          </>
        )}
      </SaveBar>
    </form>
  );
}
