import { Heading, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { UrlRuleReadingNotice, type UrlRuleReading } from '../../components/UrlRuleReadingNotice';
import { readServerError, useTRPC } from '../../lib/trpc';
import { useConnection } from './connection';
import { fieldKey } from '../../lib/form-errors';
import type { Assessment, CourseScope } from './model';

/** The course's stored URL rules the exam browser reads differently (`instructor.urlRules.readings`). */
export function useUrlRuleReadings() {
  const trpc = useTRPC();
  return useQuery(trpc.instructor.urlRules.readings.queryOptions());
}

/** Reads the marks again after a save or reset changed stored rules (a saved rule passed today's checks). */
export function useUrlRuleReadingsRefetch() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: trpc.instructor.urlRules.readings.queryKey() });
}

/** The marked rules an assessment's configuration is built from: its own, or the course defaults' it uses. */
export function effectiveReadings(data: { course: UrlRuleReading[]; assessments: Record<string, UrlRuleReading[]> } | undefined, contentId: string): UrlRuleReading[] {
  if (data === undefined) return [];
  return data.assessments[contentId] ?? data.course;
}

/**
 * Marked rules with their repairs: the one-click rewrite, or the way to the editor at the rule. `assessment` names
 * whose own policy an `assessment` rule belongs to; course rules go to the course defaults.
 */
export function UrlRuleReadingList({
  scope,
  readings,
  assessment,
  onOpenCourseDefaults,
  onEditAssessmentRule,
}: {
  scope: CourseScope;
  readings: readonly UrlRuleReading[];
  assessment?: Assessment | undefined;
  onOpenCourseDefaults: (field?: string) => void;
  /** Opens the assessment's settings at the rule; absent where they are already open (the field is marked below). */
  onEditAssessmentRule?: ((value: string) => void) | undefined;
}) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useConnection();
  const [announcement, announce] = useAnnouncer();
  const rewrite = useMutation(
    trpc.instructor.urlRules.rewrite.mutationOptions({
      onSuccess: () => {
        announce(t('urlRuleReadings.rewritten'));
        // The rules changed where they are stored: the marks, the forms and the assessment summaries read them again.
        void queryClient.invalidateQueries({ queryKey: trpc.instructor.pathKey() });
      },
      onError: (error) => announce(readServerError(error).message, 'assertive'),
    }),
  );
  if (readings.length === 0) return <>{announcement}</>;
  return (
    <View as="div">
      {announcement}
      {readings.map((reading) => (
        <UrlRuleReadingNotice
          key={`${reading.source}:${reading.value}`}
          reading={reading}
          busy={rewrite.isPending || connection.connected === false}
          error={rewrite.error !== null && rewrite.variables?.value === reading.value ? readServerError(rewrite.error).message : null}
          onRewrite={() =>
            rewrite.mutate({
              courseId: scope.courseId,
              ...(reading.source === 'assessment' && assessment !== undefined ? { quizId: assessment.id } : {}),
              value: reading.value,
            })
          }
          onChange={
            reading.source === 'course'
              ? () => onOpenCourseDefaults(fieldKey.storedRule(reading.value))
              : onEditAssessmentRule && (() => onEditAssessmentRule(reading.value))
          }
        />
      ))}
    </View>
  );
}

/** The course defaults' marked rules, once above the assessment list (every assessment without own rules uses them). */
export function CourseUrlRuleReadings({ scope, onOpenCourseDefaults }: { scope: CourseScope; onOpenCourseDefaults: (field?: string) => void }) {
  const { t } = useTranslation('teacher');
  const readings = useUrlRuleReadings().data?.course ?? [];
  if (readings.length === 0) return null;
  return (
    <View as="section" display="block" margin="0 0 medium" aria-labelledby="course-url-rule-readings">
      <Heading level="h3" id="course-url-rule-readings" margin="0 0 xx-small">
        {t('urlRuleReadings.courseHeading')}
      </Heading>
      <UrlRuleReadingList scope={scope} readings={readings} onOpenCourseDefaults={onOpenCourseDefaults} />
    </View>
  );
}
