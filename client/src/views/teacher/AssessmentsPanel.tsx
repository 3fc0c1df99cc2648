import {
  Alert,
  Button,
  Flex,
  Heading,
  IconEditLine,
  IconPublishSolid,
  IconRefreshLine,
  IconUnpublishedLine,
  ScreenReaderContent,
  Spinner,
  Table,
  Text,
  View,
} from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getLiveRegion } from '../../lib/live-region';
import { useMediaQuery } from '../../lib/use-media-query';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useConnection } from './connection';
import { EnforcementToggle, StatusBadges } from './Enforcement';
import { fieldKey } from '../../lib/form-errors';
import { DEFAULT_SETTING, type Assessment, type AssessmentSetting, type CourseScope } from './model';
import { PolicyEditor } from './PolicyEditor';
import { useAssessments, useCourseDefaults, useSchoolExitPassword, useSettings } from './queries';
import { UnmanagedCodeNotice } from './UnmanagedCode';
import { CourseUrlRuleReadings, UrlRuleReadingList, useUrlRuleReadings } from './UrlRuleReadings';
import { useVerification, useVerificationRefetch, VerificationNotice } from './Verification';

type Outcome = { variant: 'success' | 'error'; text: string };

/**
 * The course's assessments with their enforcement switches, and the policy editor of one of them. Which one is open
 * is kept by the caller, so a visit to the course defaults comes back to it.
 */
export function AssessmentsPanel({
  scope,
  editing,
  setEditing,
  onOpenCourseDefaults,
}: {
  scope: CourseScope;
  editing: string | null;
  setEditing: (contentId: string | null) => void;
  onOpenCourseDefaults: (field?: string) => void;
}) {
  const { t } = useTranslation(['teacher', 'common']);
  const editButtons = useRef(new Map<string, HTMLElement>());
  const assessments = useAssessments();
  const settings = useSettings();

  // A marked rule's "Change the rule" opens the assessment's settings at that rule (its stored value).
  const [ruleFocus, setRuleFocus] = useState<string | null>(null);
  const editRule = (contentId: string, value: string) => {
    setRuleFocus(value);
    setEditing(contentId);
  };

  const closeEditor = () => {
    const id = editing;
    setEditing(null);
    // Back where the teacher left: the button that opened the editor.
    window.setTimeout(() => (id !== null ? editButtons.current.get(id)?.focus() : undefined), 0);
  };

  const current = editing !== null ? assessments.data?.find((assessment) => assessment.id === editing) : undefined;
  if (current !== undefined) {
    return (
      <PolicyEditor
        scope={scope}
        assessment={current}
        setting={settings.data?.[current.id] ?? DEFAULT_SETTING}
        onClose={() => {
          setRuleFocus(null);
          closeEditor();
        }}
        onOpenCourseDefaults={onOpenCourseDefaults}
        focusRule={ruleFocus}
      />
    );
  }

  return (
    <View as="div">
      <SetupReminder scope={scope} onOpenCourseDefaults={onOpenCourseDefaults} />
      <RefreshBar scope={scope} />
      {assessments.isPending ? (
        <View as="div" textAlign="center" padding="large">
          <Spinner renderTitle={t('assessments.loading')} size="small" />
        </View>
      ) : assessments.isError ? (
        <Alert variant="error" variantScreenReaderLabel={t('common:variant.error')} hasShadow={false}>
          {t('assessments.loadFailed', { reason: readServerError(assessments.error).message })}
        </Alert>
      ) : assessments.data.length === 0 ? (
        <View as="div" padding="medium" borderWidth="small" borderRadius="medium" textAlign="center">
          <Text as="p">{t('assessments.empty')}</Text>
          <Text as="p" color="secondary">
            {t('assessments.emptyHint')}
          </Text>
        </View>
      ) : (
        <AssessmentTable
          scope={scope}
          assessments={assessments.data}
          settings={settings.data ?? {}}
          onEdit={setEditing}
          onEditRule={editRule}
          registerEditButton={(id, element) => {
            if (element) editButtons.current.set(id, element);
            else editButtons.current.delete(id);
          }}
          onOpenCourseDefaults={onOpenCourseDefaults}
        />
      )}
    </View>
  );
}

function SetupReminder({ scope, onOpenCourseDefaults }: { scope: CourseScope; onOpenCourseDefaults: (field?: string) => void }) {
  const { t } = useTranslation(['teacher', 'common']);
  const defaults = useCourseDefaults(scope);
  const school = useSchoolExitPassword();
  if (defaults.data === undefined || defaults.data.defaults.setupCompleted) return null;
  const missingExit = !defaults.data.defaults.hasQuitPassword && school.data?.set !== true;
  return (
    <Alert variant="info" variantScreenReaderLabel={t('common:variant.info')} hasShadow={false} margin="0 0 medium">
      <Text as="p">
        {t('setupReminder.notFinished')} {missingExit ? t('setupReminder.missingExit') : t('setupReminder.review')}
      </Text>
      <Button size="small" onClick={() => onOpenCourseDefaults(fieldKey.password('quit'))}>
        {t('setupReminder.open')}
      </Button>
    </Alert>
  );
}

function RefreshBar({ scope }: { scope: CourseScope }) {
  const { t } = useTranslation(['teacher', 'common']);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useConnection();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const refetchVerification = useVerificationRefetch();
  const refresh = useMutation(
    trpc.instructor.assessments.refresh.mutationOptions({
      onMutate: () => setOutcome(null),
      onSuccess: (result) => {
        setOutcome({ variant: 'success', text: t('refresh.found', { count: result.quizCount }) });
        void queryClient.invalidateQueries({ queryKey: trpc.instructor.assessments.list.queryKey() });
        refetchVerification();
      },
      onError: (error) => {
        const refusal = readServerError(error);
        // An expired authorization is explained by the prompt above the table.
        if (refusal.authUrl === undefined) setOutcome({ variant: 'error', text: refusal.message });
      },
    }),
  );
  return (
    <View as="div" margin="0 0 medium">
      <Flex gap="small" alignItems="center" wrap="wrap">
        <Button
          color="primary"
          renderIcon={<IconRefreshLine />}
          onClick={() => {
            if (!refresh.isPending) refresh.mutate({ courseId: scope.courseId });
          }}
          interaction={connection.connected === false ? 'disabled' : 'enabled'}
        >
          {t('refresh.button')}
        </Button>
        {refresh.isPending && <Spinner renderTitle={t('refresh.pending')} size="x-small" />}
        <Text size="small" color="secondary">
          {t('refresh.hint')}
        </Text>
      </Flex>
      {outcome !== null && (
        <Alert
          variant={outcome.variant}
          variantScreenReaderLabel={t(outcome.variant === 'success' ? 'common:variant.success' : 'common:variant.error')}
          hasShadow={false}
          margin="small 0 0"
          liveRegion={getLiveRegion}
          liveRegionPoliteness="polite"
          renderCloseButtonLabel={t('action.dismiss')}
          onDismiss={() => setOutcome(null)}
        >
          {outcome.text}
        </Alert>
      )}
    </View>
  );
}

function AssessmentTable({
  scope,
  assessments,
  settings,
  onEdit,
  onEditRule,
  registerEditButton,
  onOpenCourseDefaults,
}: {
  scope: CourseScope;
  assessments: readonly Assessment[];
  settings: Readonly<Record<string, AssessmentSetting>>;
  onEdit: (id: string) => void;
  /** Opens an assessment's settings at one of its own rules. */
  onEditRule: (id: string, value: string) => void;
  registerEditButton: (id: string, element: HTMLElement | null) => void;
  onOpenCourseDefaults: (field?: string) => void;
}) {
  const { t } = useTranslation('teacher');
  // An LMS frame can be narrow: below this width each assessment becomes a stacked block instead of a wide row.
  const narrow = useMediaQuery('(max-width: 44rem)');
  const verification = useVerification().data ?? {};
  const ruleReadings = useUrlRuleReadings().data;
  return (
    <View as="div">
      <Heading level="h2" margin="0 0 small">
        {t('assessments.heading')}
      </Heading>
      <CourseUrlRuleReadings scope={scope} onOpenCourseDefaults={onOpenCourseDefaults} />
      <Table caption={t('assessments.caption', { course: scope.courseName })} layout={narrow ? 'stacked' : 'auto'} hover>
        <Table.Head>
          <Table.Row>
            <Table.ColHeader id="assessment">{t('assessments.column.assessment')}</Table.ColHeader>
            <Table.ColHeader id="type">{t('assessments.column.type')}</Table.ColHeader>
            <Table.ColHeader id="published">{t('assessments.column.published')}</Table.ColHeader>
            <Table.ColHeader id="required">{t('assessments.column.examBrowser')}</Table.ColHeader>
            <Table.ColHeader id="status">{t('assessments.column.status')}</Table.ColHeader>
            <Table.ColHeader id="actions">
              {/* Stacked rows print each column's title before the value; this column's button names itself. */}
              {narrow ? null : <ScreenReaderContent>{t('assessments.column.actions')}</ScreenReaderContent>}
            </Table.ColHeader>
          </Table.Row>
        </Table.Head>
        <Table.Body>
          {assessments.map((assessment) => {
            const setting = settings[assessment.id] ?? DEFAULT_SETTING;
            return (
              <Table.Row key={assessment.id}>
                <Table.RowHeader>
                  <Text weight="bold">{assessment.title}</Text>
                </Table.RowHeader>
                <Table.Cell>{t(`assessments.contentType.${assessment.contentType}`)}</Table.Cell>
                <Table.Cell>
                  <Flex gap="xx-small" alignItems="center">
                    {assessment.published ? <IconPublishSolid color="success" /> : <IconUnpublishedLine color="secondary" />}
                    <Text size="small">{assessment.published ? t('assessments.published') : t('assessments.unpublished')}</Text>
                  </Flex>
                </Table.Cell>
                <Table.Cell>
                  <EnforcementToggle assessment={assessment} setting={setting} onOpenCourseDefaults={onOpenCourseDefaults} />
                </Table.Cell>
                <Table.Cell>
                  <StatusBadges setting={setting} verification={verification[assessment.id]} />
                  <VerificationNotice assessment={assessment} setting={setting} record={verification[assessment.id]} />
                  <UnmanagedCodeNotice assessment={assessment} />
                  {/* The course defaults' marked rules are shown once above the list; here only the assessment's own. */}
                  <UrlRuleReadingList
                    scope={scope}
                    readings={(ruleReadings?.assessments[assessment.id] ?? []).filter((reading) => reading.source === 'assessment')}
                    assessment={assessment}
                    onOpenCourseDefaults={onOpenCourseDefaults}
                    onEditAssessmentRule={(value) => onEditRule(assessment.id, value)}
                  />
                </Table.Cell>
                <Table.Cell textAlign="end">
                  <Button
                    size="small"
                    renderIcon={<IconEditLine />}
                    onClick={() => onEdit(assessment.id)}
                    elementRef={(element) => registerEditButton(assessment.id, element instanceof HTMLElement ? element : null)}
                  >
                    {t('assessments.settings')}
                    <ScreenReaderContent> {t('assessments.settingsOf', { title: assessment.title })}</ScreenReaderContent>
                  </Button>
                </Table.Cell>
              </Table.Row>
            );
          })}
        </Table.Body>
      </Table>
    </View>
  );
}
