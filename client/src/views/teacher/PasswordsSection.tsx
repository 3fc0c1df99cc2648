import { Flex, View } from '@instructure/ui';
import type { ComponentProps, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { EditorSection } from './EditorSection';
import type { FieldFocus } from '../../lib/form-errors';
import type { PasswordWhich } from './PasswordFields';
import { PasswordReveal } from '../../components/PasswordReveal';

/**
 * The passwords of an editor form: the start and exit password fields side by side (below each other in a narrow
 * frame), then the button that shows the passwords now in effect. `field` renders the fields of one password.
 */
export function PasswordsSection({
  id,
  intro,
  alert,
  focus,
  field,
  subject,
  reveal,
}: {
  id: string;
  intro: ReactNode;
  alert?: ReactNode;
  focus: FieldFocus;
  field: (which: PasswordWhich) => ReactNode;
  /** Whose passwords are revealed ("the course"), in the page's language. */
  subject: string;
  reveal: ComponentProps<typeof PasswordReveal>['reveal'];
}) {
  const { t } = useTranslation('teacher');
  return (
    <EditorSection id={id} section="passwords" heading={t('passwords.heading')} intro={intro} alert={alert} focus={focus}>
      <Flex gap="large" wrap="wrap" alignItems="start">
        <Flex.Item size="16rem" shouldGrow shouldShrink>
          {field('start')}
        </Flex.Item>
        <Flex.Item size="16rem" shouldGrow shouldShrink>
          {field('quit')}
        </Flex.Item>
      </Flex>
      <View as="div" margin="medium 0 0">
        <PasswordReveal subject={subject} reveal={reveal} />
      </View>
    </EditorSection>
  );
}
