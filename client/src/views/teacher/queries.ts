import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useTRPC } from '../../lib/trpc';
import { DEFAULT_SETTING, type AssessmentSetting, type CourseScope } from './model';

export function useAssessments() {
  const trpc = useTRPC();
  return useQuery(trpc.instructor.assessments.list.queryOptions());
}

export function useSettings() {
  const trpc = useTRPC();
  return useQuery(trpc.instructor.assessments.settings.queryOptions());
}

export function useCourseDefaults(scope: CourseScope) {
  const trpc = useTRPC();
  return useQuery(trpc.instructor.courseDefaults.get.queryOptions({ courseId: scope.courseId }));
}

/** Whether the school set a default exit password; it changes only with the service's configuration. */
export function useSchoolExitPassword() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.instructor.courseDefaults.schoolExitPassword.queryOptions(), staleTime: Infinity });
}

/**
 * Applies a setting a mutation answered with, so the table shows the outcome at once, then asks again in the
 * background: the answer of `disable` leaves out fields the table also shows.
 */
export function useSettingWriter() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(
    (contentId: string, setting: Partial<AssessmentSetting>) => {
      const key = trpc.instructor.assessments.settings.queryKey();
      queryClient.setQueryData(key, (old) => {
        if (old === undefined) return old;
        const previous = old[contentId] ?? DEFAULT_SETTING;
        return { ...old, [contentId]: { ...previous, ...setting } };
      });
      void queryClient.invalidateQueries({ queryKey: key });
      void queryClient.invalidateQueries({ queryKey: trpc.instructor.enforcement.status.queryKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.instructor.assessments.verification.queryKey() });
    },
    [trpc, queryClient],
  );
}
