import { Alert, Link, List, Text, View } from '@instructure/ui';
import { useTranslation } from 'react-i18next';
import { DefinitionList } from './DefinitionList';
import { Page } from './Page';

export type MessageDetail = string | { label: string; value: string };

export type PageMessageProps = {
  title: string;
  message: string;
  variant?: 'info' | 'success' | 'warning' | 'error';
  details?: readonly MessageDetail[];
  /** Where "Return to the LMS" leads; the page sits in the LMS's frame, so it replaces the top window. */
  lmsReturnUrl?: string;
  /** The way forward the message names (a page of the LMS), above the way back. */
  link?: { href: string; text: string } | undefined;
};

/** A full page with one message: notices from the server and the client's own fallbacks. */
export function PageMessage({ title, message, variant = 'error', details = [], lmsReturnUrl, link }: PageMessageProps) {
  const { t } = useTranslation();
  const lines = details.filter((d): d is string => typeof d === 'string');
  const pairs = details.filter((d): d is { label: string; value: string } => typeof d !== 'string');

  return (
    <Page title={title}>
      <Alert variant={variant} variantScreenReaderLabel={t(`variant.${variant}`)} hasShadow={false} margin="0 0 medium">
        <Text>{message}</Text>
      </Alert>
      {pairs.length > 0 && (
        <View as="section" display="block" margin="0 0 medium" aria-label={t('details')}>
          <DefinitionList items={pairs.map((p, i) => ({ key: `${i}`, term: p.label, description: p.value }))} />
        </View>
      )}
      {lines.length > 0 && (
        <View as="section" display="block" margin="0 0 medium" aria-label={t('details')}>
          <List margin="0">
            {lines.map((line, i) => (
              <List.Item key={i}>{line}</List.Item>
            ))}
          </List>
        </View>
      )}
      {link !== undefined && (
        <View as="p" display="block" margin="0 0 medium">
          <Link href={link.href} target="_top">
            {link.text}
          </Link>
        </View>
      )}
      {lmsReturnUrl !== undefined && (
        <Link href={lmsReturnUrl} target="_top">
          {t('returnToLms')}
        </Link>
      )}
    </Page>
  );
}
