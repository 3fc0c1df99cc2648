import { Button, Flex, Heading, IconArrowOpenStartLine, IconRefreshLine, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { FocusTarget } from '../../components/FocusTarget';
import { EmptyState, QueryState } from '../../components/QueryState';
import { StatusAlert } from '../../components/StatusAlert';
import { readServerError, useTRPC } from '../../lib/trpc';
import { AssessmentActions } from './AssessmentActions';
import { AssessmentTable } from './AssessmentTable';
import { CodeSheet } from './CodeSheet';
import { CourseExamDay } from './CourseExamDay';
import { CoursePasswords } from './CoursePasswords';
import { CourseReset } from './CourseReset';
import { relativeTime } from './model';
import { AdminCourseUrlRuleReadings } from './UrlRuleReadings';
import { AdminCourseSweep } from './PreExamSweep';

type Outcome = { variant: 'success' | 'error'; text: string };

/** One connected course: its quizzes with their enforcement, the course passwords, and the refresh from the LMS. */
export function CourseDetail({
  courseId,
  fallbackName,
  examDayAssessment,
  onBack,
}: {
  courseId: string;
  fallbackName: string;
  /** The exam-day board to show first (opened from the running exams). */
  examDayAssessment?: string | undefined;
  onBack: () => void;
}) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const course = useQuery(trpc.admin.courses.get.queryOptions({ courseId }));
  const [managing, setManaging] = useState<string | null>(null);
  const [codeSheet, setCodeSheet] = useState(false);
  const codeSheetButton = useRef<HTMLElement | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // A reset clears what the page shows beside the quiz list (a new exit password still on screen, the last refresh).
  const [resets, setResets] = useState(0);
  const heading = useRef<HTMLElement | null>(null);
  const actionButtons = useRef(new Map<string, HTMLElement>());
  useEffect(() => heading.current?.focus(), []);

  const refresh = useMutation(
    trpc.admin.courses.refresh.mutationOptions({
      onMutate: () => setOutcome(null),
      onSuccess: (result) => {
        setOutcome({ variant: 'success', text: t('course.found', { count: result.assessmentCount }) });
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
      onError: (error) => setOutcome({ variant: 'error', text: t('course.refreshFailed', { reason: readServerError(error).message }) }),
    }),
  );

  const closeActions = () => {
    const id = managing;
    setManaging(null);
    window.setTimeout(() => (id !== null ? actionButtons.current.get(id)?.focus() : undefined), 0);
  };
  const name = course.data?.course.name ?? fallbackName;
  const managed = managing === null ? undefined : course.data?.course.assessments.find((assessment) => assessment.id === managing);

  return (
    <View as="section" display="block" aria-labelledby="course-heading">
      <Button renderIcon={<IconArrowOpenStartLine />} onClick={onBack} margin="0 0 small">
        {t('course.back')}
      </Button>
      <FocusTarget focusRef={(element) => void (heading.current = element)}>
        <Heading level="h2" id="course-heading" margin="0 0 xx-small">
          {name}
        </Heading>
      </FocusTarget>
      {course.data !== undefined && (
        <Text as="p" size="small" color="secondary">
          {[
            course.data.course.courseCode,
            course.data.course.termName,
            course.data.course.readFromLms ? t('course.refreshed', { when: relativeTime(course.data.course.lastRefreshedAt) }) : t('course.notRead'),
            course.data.course.setupCompleted ? null : t('course.setupNotFinished'),
          ]
            .filter((part) => part)
            .join(' · ')}
        </Text>
      )}
      <Flex gap="small" alignItems="center" wrap="wrap" margin="small 0 medium">
        <Button
          color="primary"
          renderIcon={<IconRefreshLine />}
          onClick={() => {
            if (!refresh.isPending) refresh.mutate({ courseId });
          }}
        >
          {t('course.refresh')}
        </Button>
        {refresh.isPending && <Spinner renderTitle={t('course.refreshing')} size="x-small" />}
        <Text size="small" color="secondary">
          {t('course.refreshHint')}
        </Text>
      </Flex>
      {outcome !== null && (
        <StatusAlert variant={outcome.variant} margin="0 0 medium" live="polite" dismissLabel={t('dismiss')} onDismiss={() => setOutcome(null)}>
          {outcome.text}
        </StatusAlert>
      )}
      <QueryState
        query={course}
        loading={t('course.loading')}
        failed={(reason, error) => (readServerError(error).errorCode === ErrorCodes.ADMIN_COURSE_NOT_CONNECTED ? t('course.notConnected') : t('course.loadFailed', { reason }))}
      >
        {(data) => (
          <>
            <CoursePasswords key={resets} courseId={courseId} courseName={name} />
            <AdminCourseUrlRuleReadings courseId={courseId} />
            <AdminCourseSweep courseId={courseId} />
            {data.course.assessments.length === 0 ? (
              <EmptyState>
                <Text as="p">{t('course.noQuizzes')}</Text>
                <Text as="p" color="secondary">
                  {t('course.noQuizzesHint')}
                </Text>
              </EmptyState>
            ) : (
              <AssessmentTable
                course={data.course}
                onManage={setManaging}
                registerActionButton={(id, element) => {
                  if (element) actionButtons.current.set(id, element);
                  else actionButtons.current.delete(id);
                }}
              />
            )}
            {managed !== undefined && <AssessmentActions courseId={courseId} assessment={managed} onClose={closeActions} />}
            {codeSheet ? (
              <CodeSheet
                courseId={courseId}
                courseName={name}
                assessments={data.course.assessments}
                onClose={() => {
                  setCodeSheet(false);
                  window.setTimeout(() => codeSheetButton.current?.focus(), 0);
                }}
              />
            ) : (
              <View as="div" margin="medium 0">
                <Button elementRef={(element) => void (codeSheetButton.current = element as HTMLElement | null)} onClick={() => setCodeSheet(true)}>
                  {t('codeSheet.open')}
                </Button>
                <Text as="p" size="small" color="secondary">
                  {t('codeSheet.openHint')}
                </Text>
              </View>
            )}
            <CourseExamDay courseId={courseId} assessments={data.course.assessments.filter((assessment) => assessment.enabled)} initial={examDayAssessment} />
            <CourseReset
              courseId={courseId}
              courseName={name}
              onChanged={() => {
                setResets((count) => count + 1);
                setOutcome(null);
              }}
            />
          </>
        )}
      </QueryState>
    </View>
  );
}
