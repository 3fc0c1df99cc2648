import { Button, Heading, IconTrashLine, Text, View } from '@instructure/ui';
import { useState } from 'react';
import { ResetCourseDialog } from './ResetCourseDialog';

/**
 * The course's reset, last on its page: what it does, and the button that opens the dialog. `onChanged` runs once a
 * reset may have changed the course (done, or left to verify).
 */
export function CourseReset({ courseId, courseName, onChanged }: { courseId: string; courseName: string; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <View as="section" display="block" margin="large 0 0" padding="medium" borderWidth="small" borderRadius="medium" aria-labelledby="course-reset-heading">
      <Heading level="h3" id="course-reset-heading" margin="0 0 x-small">
        Reset the course
      </Heading>
      <Text as="p">
        Removes the access codes this tool set in the LMS and clears the course’s quizzes, settings and exam tools here, for a new term or a
        fresh start. The dialog shows what will be removed before anything happens.
      </Text>
      <Button color="danger" renderIcon={<IconTrashLine />} onClick={() => setOpen(true)}>
        Reset course…
      </Button>
      {open && <ResetCourseDialog courseId={courseId} courseName={courseName} onClose={() => setOpen(false)} onChanged={onChanged} />}
    </View>
  );
}
