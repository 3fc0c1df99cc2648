import { Spinner, View } from '@instructure/ui';
import { useTranslation } from 'react-i18next';

export function Loading() {
  const { t } = useTranslation();
  return (
    <View as="div" display="block" textAlign="center" padding="large">
      {/* The delay keeps a fast chunk load from flashing a spinner. */}
      <Spinner renderTitle={t('loading')} size="medium" delay={300} />
    </View>
  );
}
