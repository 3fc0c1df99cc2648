import { Button, Heading, Text, View } from '@instructure/ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyButton } from '../../components/CopyButton';
import { formatTime } from '../../lib/audit-labels';
import { releaseExemption } from './api';
import { StatusMessage } from './StatusMessage';

export interface ExemptionOfferView {
  contentId: string;
  title: string;
  expiresAt: string;
  usedAt: string | null;
  releaseUrl: string;
}

type Phase =
  | { kind: 'waiting' }
  | { kind: 'revealing' }
  | { kind: 'shown'; accessCode: string }
  | { kind: 'used'; at: string | null }
  | { kind: 'expired' }
  | { kind: 'failed'; message: string };

function initialPhase(offer: ExemptionOfferView, now: number): Phase {
  if (offer.usedAt !== null) return { kind: 'used', at: offer.usedAt };
  return Date.parse(offer.expiresAt) <= now ? { kind: 'expired' } : { kind: 'waiting' };
}

/**
 * The student's exemption from the exam browser for one assessment: what it means, and the button that shows the
 * access code once. Once shown, used or lapsed, the panel says so; the code lives only in this page's memory.
 */
export function ExemptionPanel({ offer, untitled }: { offer: ExemptionOfferView; untitled: string }) {
  const { t } = useTranslation('student');
  const [phase, setPhase] = useState<Phase>(() => initialPhase(offer, Date.now()));
  const title = offer.title.trim() === '' ? untitled : offer.title;
  const headingId = `exemption-heading-${offer.contentId.replace(/[^A-Za-z0-9_-]/g, '-')}`;

  // The offer lapses while the page is open: say so at that moment rather than after a refused click.
  useEffect(() => {
    if (phase.kind !== 'waiting') return;
    const timer = window.setTimeout(() => setPhase({ kind: 'expired' }), Math.max(0, Date.parse(offer.expiresAt) - Date.now()));
    return () => window.clearTimeout(timer);
  }, [phase.kind, offer.expiresAt]);

  const reveal = async () => {
    if (phase.kind !== 'waiting') return;
    setPhase({ kind: 'revealing' });
    const outcome = await releaseExemption(offer.releaseUrl);
    if (outcome.kind === 'released') setPhase({ kind: 'shown', accessCode: outcome.accessCode });
    else if (outcome.kind === 'unavailable') setPhase({ kind: 'used', at: null });
    else setPhase({ kind: 'failed', message: outcome.message });
  };

  return (
    <View
      as="section"
      display="block"
      aria-labelledby={headingId}
      borderWidth="medium"
      borderColor="info"
      borderRadius="medium"
      padding="small medium"
      margin="medium 0"
      data-testid="exemption-panel"
    >
      <Heading level="h2" id={headingId} margin="0 0 x-small">
        {t('exemption.heading')}
      </Heading>
      <Text as="p">{t('exemption.intro', { title })}</Text>
      {(phase.kind === 'waiting' || phase.kind === 'revealing' || phase.kind === 'failed') && (
        <>
          <Text as="p">{t('exemption.until', { time: formatTime(offer.expiresAt) })}</Text>
          <Text as="p" weight="bold">
            {t('exemption.once')}
          </Text>
          <Button color="primary" onClick={() => void reveal()} interaction={phase.kind === 'revealing' ? 'disabled' : 'enabled'}>
            {phase.kind === 'revealing' ? t('exemption.revealing') : t('exemption.reveal')}
          </Button>
          {phase.kind === 'failed' && <StatusMessage variant="error">{phase.message}</StatusMessage>}
        </>
      )}
      {phase.kind === 'shown' && (
        <View as="div" margin="small 0 0" role="status">
          <Text as="div" weight="bold">
            {t('exemption.codeLabel')}
          </Text>
          <span className="exb-row exb-row--wrap">
            <code className="exb-value" data-testid="exemption-code">
              {phase.accessCode}
            </code>
            <CopyButton value={phase.accessCode} label={t('exemption.copy')} />
          </span>
          <Text as="p">{t('exemption.shownOnce')}</Text>
        </View>
      )}
      {phase.kind === 'used' && (
        <StatusMessage variant="info">
          {phase.at === null ? t('exemption.usedNow') : t('exemption.used', { time: formatTime(phase.at) })}
        </StatusMessage>
      )}
      {phase.kind === 'expired' && <StatusMessage variant="warning">{t('exemption.expired', { time: formatTime(offer.expiresAt) })}</StatusMessage>}
    </View>
  );
}
