import { Alert, Button, Flex, Heading, IconArrowOpenStartLine, IconRefreshLine, Spinner, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { FocusTarget } from '../../components/FocusTarget';
import { getLiveRegion } from '../../lib/live-region';
import { readServerError, useTRPC } from '../../lib/trpc';
import { AssessmentActions } from './AssessmentActions';
import { AssessmentTable } from './AssessmentTable';
import { CoursePasswords } from './CoursePasswords';
import { CourseReset } from './CourseReset';
import { relativeTime } from './model';

type Outcome = { variant: 'success' | 'error'; text: string };

/** One connected course: its quizzes with their enforcement, the course passwords, and the refresh from the LMS. */
export function CourseDetail({ courseId, fallbackName, onBack }: { courseId: string; fallbackName: string; onBack: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const course = useQuery(trpc.admin.courses.get.queryOptions({ courseId }));
  const [managing, setManaging] = useState<string | null>(null);
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
        setOutcome({ variant: 'success', text: `Found ${result.assessmentCount} quiz${result.assessmentCount === 1 ? '' : 'zes'} in the LMS.` });
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
      onError: (error) => setOutcome({ variant: 'error', text: `${readServerError(error).message} The quiz list was not changed.` }),
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
        All courses
      </Button>
      <FocusTarget focusRef={(element) => void (heading.current = element)}>
        <Heading level="h2" id="course-heading" margin="0 0 xx-small">
          {name}
        </Heading>
      </FocusTarget>
      {course.data !== undefined && (
        <Text as="p" size="small" color="secondary">
          {[course.data.course.courseCode, course.data.course.termName, `refreshed ${relativeTime(course.data.course.lastRefreshedAt)}`]
            .filter((part) => part)
            .join(' · ')}
          {course.data.course.setupCompleted ? '' : ' · course setup not finished'}
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
          Refresh from LMS
        </Button>
        {refresh.isPending && <Spinner renderTitle="Reading the quizzes from the LMS" size="x-small" />}
        <Text size="small" color="secondary">
          Reads the course’s classic and new quizzes from the LMS.
        </Text>
      </Flex>
      {outcome !== null && (
        <Alert
          variant={outcome.variant}
          variantScreenReaderLabel={outcome.variant === 'success' ? 'Success,' : 'Error,'}
          hasShadow={false}
          margin="0 0 medium"
          liveRegion={getLiveRegion}
          liveRegionPoliteness="polite"
          renderCloseButtonLabel="Dismiss"
          onDismiss={() => setOutcome(null)}
        >
          {outcome.text}
        </Alert>
      )}
      {course.isPending ? (
        <View as="div" textAlign="center" padding="large">
          <Spinner renderTitle="Loading the course" size="small" />
        </View>
      ) : course.isError ? (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
          {readServerError(course.error).errorCode === ErrorCodes.ADMIN_COURSE_NOT_CONNECTED
            ? 'This course is no longer connected. Go back to all courses and connect it again from the catalog.'
            : `The course could not be loaded: ${readServerError(course.error).message} Try again in a moment.`}
        </Alert>
      ) : (
        <>
          <CoursePasswords key={resets} courseId={courseId} courseName={name} />
          {course.data.course.assessments.length === 0 ? (
            <View as="div" padding="medium" borderWidth="small" borderRadius="medium" textAlign="center">
              <Text as="p">No quizzes are listed for this course yet.</Text>
              <Text as="p" color="secondary">
                Choose “Refresh from LMS” to read its classic and new quizzes.
              </Text>
            </View>
          ) : (
            <AssessmentTable
              course={course.data.course}
              onManage={setManaging}
              registerActionButton={(id, element) => {
                if (element) actionButtons.current.set(id, element);
                else actionButtons.current.delete(id);
              }}
            />
          )}
          {managed !== undefined && <AssessmentActions courseId={courseId} assessment={managed} onClose={closeActions} />}
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
    </View>
  );
}
