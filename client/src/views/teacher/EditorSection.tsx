import { Alert, Text, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { i18next } from '../../i18n/i18n';
import { fieldKey, type FieldFocus, type FormError, type SectionName } from '../../lib/form-errors';
import { SectionHeading } from './SectionHeading';

/** The refusal of a save that is about the section `name` as a whole, shown at the top of that section. */
export function sectionError(error: FormError | null, name: SectionName): ReactNode {
  return error !== null && error.key === fieldKey.section(name) ? (
    <Alert variant="error" variantScreenReaderLabel={i18next.t('common:variant.error')} hasShadow={false} margin="0 0 small">
      {error.message}
    </Alert>
  ) : null;
}

/**
 * One section of an editor form: a heading a refusal can move the focus to, what the section is for, the refusal
 * about the section as a whole, and its fields.
 */
export function EditorSection({
  id,
  section,
  heading,
  intro,
  alert,
  focus,
  margin = '0 0 large',
  children,
}: {
  id: string;
  /** The section a refusal names; its heading takes the focus then. */
  section: SectionName;
  heading: ReactNode;
  intro: ReactNode;
  alert?: ReactNode;
  focus: FieldFocus;
  margin?: 'medium 0 large' | '0 0 large';
  children: ReactNode;
}) {
  return (
    <View as="section" display="block" margin={margin} aria-labelledby={id}>
      <SectionHeading id={id} register={focus.register(fieldKey.section(section))}>
        {heading}
      </SectionHeading>
      <Text as="p" color="secondary">
        {intro}
      </Text>
      {alert}
      {children}
    </View>
  );
}
