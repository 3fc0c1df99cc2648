import { Alert, Flex, Text, View } from '@instructure/ui';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { selectContents } from '../lib/clipboard';
import { CopyButton } from './CopyButton';

export type CopyableValueProps = {
  label: string;
  value: string;
  /** A short hint shown under the label: where the value goes. */
  description?: ReactNode;
  /** Render the value as a block of code (snippets) instead of a single field. */
  block?: boolean;
};

/** A labelled value an administrator pastes somewhere else, with its copy button. */
export function CopyableValue({ label, value, description, block = false }: CopyableValueProps) {
  const { t } = useTranslation();
  const valueRef = useRef<HTMLElement | null>(null);
  const [manualCopyNeeded, setManualCopyNeeded] = useState(false);

  const handleFailure = () => {
    selectContents(valueRef.current);
    setManualCopyNeeded(true);
  };

  const valueElement = block ? (
    <pre ref={(el) => void (valueRef.current = el)} className="exb-snippet">
      {value}
    </pre>
  ) : (
    <code ref={(el) => void (valueRef.current = el)} className="exb-value">
      {value}
    </code>
  );

  return (
    <View as="div" margin="0 0 small">
      <Text as="div" weight="bold">
        {label}
      </Text>
      {description !== undefined && (
        <Text as="div" size="small" color="secondary">
          {description}
        </Text>
      )}
      <Flex gap="x-small" alignItems={block ? 'start' : 'center'} margin="xx-small 0 0">
        <Flex.Item shouldGrow shouldShrink>
          {valueElement}
        </Flex.Item>
        <Flex.Item>
          <CopyButton value={value} label={label} onFailure={handleFailure} />
        </Flex.Item>
      </Flex>
      {manualCopyNeeded && (
        <Alert
          variant="warning"
          hasShadow={false}
          margin="x-small 0 0"
          renderCloseButtonLabel={t('copy.dismiss')}
          onDismiss={() => setManualCopyNeeded(false)}
        >
          {t('copy.manual')}
        </Alert>
      )}
    </View>
  );
}
