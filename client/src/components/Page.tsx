import { Flex, Heading, View } from '@instructure/ui';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export type PageProps = {
  title: string;
  /** Rendered next to the heading, for example a status pill. */
  headingAside?: ReactNode;
  children?: ReactNode;
};

/**
 * The frame every view shares. Sized for an LMS iframe: a readable line length on wide frames and
 * no horizontal scrolling on narrow ones.
 */
export function Page({ title, headingAside, children }: PageProps) {
  const { t } = useTranslation();
  const serviceName = t('serviceName');
  useEffect(() => {
    document.title = title === serviceName ? title : `${title} · ${serviceName}`;
  }, [title, serviceName]);

  return (
    <View as="main" display="block" maxWidth="60rem" margin="0 auto" padding="medium">
      <Flex as="div" alignItems="center" wrap="wrap" gap="small" margin="0 0 medium">
        <Heading level="h1">{title}</Heading>
        {headingAside}
      </Flex>
      {children}
    </View>
  );
}
