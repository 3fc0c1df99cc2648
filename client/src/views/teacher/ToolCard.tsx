import { Button, IconTrashLine, ScreenReaderContent, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The frame of one tool in an editor's tool list, named for screen readers. */
export function ToolCard({ name, background, children }: { name: string; background?: 'primary' | 'secondary'; children: ReactNode }) {
  return (
    <View
      as="div"
      role="group"
      aria-label={name}
      padding="small"
      margin="0 0 small"
      borderWidth="small"
      borderRadius="medium"
      background={background}
    >
      {children}
    </View>
  );
}

/** Removes one tool; `name` tells screen-reader users which. */
export function RemoveToolButton({ name, margin, onRemove }: { name: string; margin?: 'small 0 0'; onRemove: () => void }) {
  const { t } = useTranslation('teacher');
  return (
    <Button size="small" margin={margin} renderIcon={<IconTrashLine />} onClick={onRemove}>
      {t('action.remove')}
      <ScreenReaderContent> {name}</ScreenReaderContent>
    </Button>
  );
}
