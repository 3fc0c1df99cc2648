import { Heading, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { UrlRuleReadingNotice, type UrlRuleReading } from '../../components/UrlRuleReadingNotice';
import { readServerError, useTRPC } from '../../lib/trpc';

/** The course's stored URL rules the exam browser reads differently (`admin.courses.urlRuleReadings`). */
export function useAdminUrlRuleReadings(courseId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.admin.courses.urlRuleReadings.queryOptions({ courseId }));
}

/**
 * Marked rules in the administrator's course detail, with the one-click rewrite (administrators change a course's
 * policy elsewhere too, resetting an assessment to the course defaults). A rule without a faithful form is explained
 * only: the course's teachers change it in their settings.
 */
export function AdminUrlRuleReadingList({ courseId, readings, assessmentId }: { courseId: string; readings: readonly UrlRuleReading[]; assessmentId?: string }) {
  const { t } = useTranslation('teacher');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [announcement, announce] = useAnnouncer();
  const rewrite = useMutation(
    trpc.admin.courses.rewriteUrlRule.mutationOptions({
      onSuccess: () => {
        announce(t('urlRuleReadings.rewritten'));
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
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
          busy={rewrite.isPending}
          changedByTeachers
          error={rewrite.error !== null && rewrite.variables?.value === reading.value ? readServerError(rewrite.error).message : null}
          onRewrite={() =>
            rewrite.mutate({ courseId, ...(reading.source === 'assessment' && assessmentId !== undefined ? { assessmentId } : {}), value: reading.value })
          }
        />
      ))}
    </View>
  );
}

/** The course defaults' marked rules, once above the quiz list. */
export function AdminCourseUrlRuleReadings({ courseId }: { courseId: string }) {
  const { t } = useTranslation('teacher');
  const readings = useAdminUrlRuleReadings(courseId).data?.course ?? [];
  if (readings.length === 0) return null;
  return (
    <View as="section" display="block" margin="0 0 medium" aria-labelledby="admin-course-url-rule-readings">
      <Heading level="h3" id="admin-course-url-rule-readings" margin="0 0 xx-small">
        {t('urlRuleReadings.courseHeading')}
      </Heading>
      <AdminUrlRuleReadingList courseId={courseId} readings={readings} />
    </View>
  );
}

/** An assessment's own marked rules, beside its status in the quiz list. */
export function AdminAssessmentUrlRuleReadings({ courseId, assessmentId }: { courseId: string; assessmentId: string }) {
  const readings = (useAdminUrlRuleReadings(courseId).data?.assessments[assessmentId] ?? []).filter((reading) => reading.source === 'assessment');
  return <AdminUrlRuleReadingList courseId={courseId} readings={readings} assessmentId={assessmentId} />;
}
