import { Button, Heading, IconTrashLine, Text, View } from '@instructure/ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResetCourseDialog } from './ResetCourseDialog';

/**
 * The course's reset, last on its page: what it does, and the button that opens the dialog. `onChanged` runs once a
 * reset may have changed the course (done, or left to verify).
 */
export function CourseReset({ courseId, courseName, onChanged }: { courseId: string; courseName: string; onChanged: () => void }) {
  const { t } = useTranslation('admin');
  const [open, setOpen] = useState(false);
  return (
    <View as="section" display="block" margin="large 0 0" padding="medium" borderWidth="small" borderRadius="medium" aria-labelledby="course-reset-heading">
      <Heading level="h3" id="course-reset-heading" margin="0 0 x-small">
        {t('reset.heading')}
      </Heading>
      <Text as="p">{t('reset.intro')}</Text>
      <Button color="danger" renderIcon={<IconTrashLine />} onClick={() => setOpen(true)}>
        {t('reset.open')}
      </Button>
      {open && <ResetCourseDialog courseId={courseId} courseName={courseName} onClose={() => setOpen(false)} onChanged={onChanged} />}
    </View>
  );
}
