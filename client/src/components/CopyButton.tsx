import { Alert, Button, IconCheckMarkLine, IconCopyLine, IconWarningLine, ScreenReaderContent } from '@instructure/ui';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from '../lib/clipboard';
import { getLiveRegion } from '../lib/live-region';

type CopyStatus = 'idle' | 'copied' | 'failed';

export type CopyButtonProps = {
  /** The exact text placed on the clipboard. */
  value: string;
  /** What is being copied, for the accessible name and the announcement ("OIDC login URL"). */
  label: string;
  /** Called when neither clipboard path worked, so the caller can offer a manual copy. */
  onFailure?: () => void;
};

const RESET_AFTER_MS = { copied: 2500, failed: 6000 } as const;

export function CopyButton({ value, label, onFailure }: CopyButtonProps) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<CopyStatus>('idle');
  // A fresh key per attempt makes a repeated copy announce again.
  const [attempt, setAttempt] = useState(0);
  const resetTimer = useRef<number | undefined>(undefined);

  useEffect(() => () => window.clearTimeout(resetTimer.current), []);

  const handleClick = async () => {
    const copied = await copyText(value);
    const next: CopyStatus = copied ? 'copied' : 'failed';
    setStatus(next);
    setAttempt((n) => n + 1);
    if (!copied) onFailure?.();
    window.clearTimeout(resetTimer.current);
    resetTimer.current = window.setTimeout(() => setStatus('idle'), RESET_AFTER_MS[next]);
  };

  const icon =
    status === 'copied' ? <IconCheckMarkLine /> : status === 'failed' ? <IconWarningLine /> : <IconCopyLine />;
  const text = status === 'copied' ? t('copy.copied') : status === 'failed' ? t('copy.failed') : t('copy.button');

  return (
    <>
      <span className="exb-copy-button">
        <Button size="small" color={status === 'copied' ? 'success' : 'secondary'} renderIcon={icon} onClick={handleClick}>
          {text}
          <ScreenReaderContent> {label}</ScreenReaderContent>
        </Button>
      </span>
      {status !== 'idle' && (
        <Alert
          key={attempt}
          screenReaderOnly
          liveRegion={getLiveRegion}
          liveRegionPoliteness="polite"
          variant={status === 'copied' ? 'success' : 'warning'}
        >
          {status === 'copied' ? t('copy.announceCopied', { label }) : t('copy.announceFailed', { label })}
        </Alert>
      )}
    </>
  );
}
