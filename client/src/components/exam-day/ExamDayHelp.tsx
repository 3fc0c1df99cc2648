import { Heading, Text, TextInput, View } from '@instructure/ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { helpStudentIdSchema } from '@exb/shared/exam-day-help.js';
import { ExemptStudent, type ExemptionScope } from './ExemptStudent';

/**
 * Help for one student on exam day, beside an enforced assessment (the teacher's settings of it, the administrator's
 * actions on it): the exemption from the exam browser for a student named by their LMS user id. The exam-day board
 * offers it, with the re-admission, in each student's row; this field serves the student the board does not list yet
 * (the board records a student from their first step, and the roster may be unavailable). A re-admission is not
 * offered here: it voids steps, so a student without a row has nothing to re-admit from.
 */
export function ExamDayHelp({ scope, assessment }: { scope: ExemptionScope; assessment: { readonly id: string; readonly title: string } }) {
  const { t } = useTranslation('teacher');
  const [studentId, setStudentId] = useState('');
  const trimmed = studentId.trim();
  const valid = helpStudentIdSchema.safeParse(trimmed).success;
  const headingId = `exam-day-help-${assessment.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <View as="section" display="block" aria-labelledby={headingId} padding="small medium" margin="medium 0" borderWidth="small" borderRadius="medium" data-testid="exam-day-help">
      <Heading level="h3" id={headingId} margin="0 0 x-small">
        {t('examDayHelp.heading')}
      </Heading>
      <Text as="p">{t('examDayHelp.intro')}</Text>
      <View as="div" maxWidth="20rem" margin="0 0 small">
        <TextInput
          renderLabel={t('examDayHelp.studentLabel')}
          value={studentId}
          onChange={(_event, value) => setStudentId(value)}
          inputMode="numeric"
          messages={
            trimmed !== '' && !valid ? [{ type: 'error', text: t('examDayHelp.studentInvalid') }] : [{ type: 'hint', text: t('examDayHelp.studentHint') }]
          }
        />
      </View>
      <ExemptStudent
        key={valid ? trimmed : ''}
        scope={scope}
        assessmentId={assessment.id}
        assessmentTitle={assessment.title}
        lmsUserId={valid ? trimmed : null}
      />
    </View>
  );
}
