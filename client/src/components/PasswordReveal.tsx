import { Alert, Button, Flex, IconEyeLine, IconOffLine, Text, View } from '@instructure/ui';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from './Announcer';
import { CopyButton } from './CopyButton';
import { readServerError, type RouterOutputs } from '../lib/trpc';
import { verificationReasonText } from '../lib/verification-reasons';

/** A reveal as the instructor's routes answer it; the administrator's reveals answer alike. */
type RevealResult = RouterOutputs['instructor']['passwords']['revealCourse'];

type Source = RevealResult['passwords']['exit']['source'] | 'lms';

/** A reveal as the routes answer it; the administrator's assessment reveal adds the access code. */
type Revealed = Pick<RevealResult, 'expiresInSeconds'> & {
  passwords: RevealResult['passwords'] & { accessCode?: { value: string | null; source: 'lms'; mismatch: string | null } };
};

/** Seconds left until `deadline`, ticking while there is one; `null` without one. */
export function useSecondsLeft(deadline: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (deadline === null) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(timer);
  }, [deadline]);
  if (deadline === null) return null;
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

interface Shown {
  readonly passwords: Revealed['passwords'];
  readonly deadline: number;
  readonly total: number;
}

/**
 * Shows the effective start and exit passwords for the time the server allows (`expiresInSeconds`), with a visible
 * countdown, then forgets them. The values live in this component's state only, never in the query cache, and a
 * school-managed exit password is named but never shown (the server does not send it).
 */
export function PasswordReveal({
  reveal,
  subject,
}: {
  /** Asks the server for the values. */
  reveal: () => Promise<Revealed>;
  /** What the passwords belong to, for labels ("this assessment", "the course"), in the page's language. */
  subject: string;
}) {
  const { t, i18n } = useTranslation(['teacher', 'common']);
  const [shown, setShown] = useState<Shown | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [announcement, announce] = useAnnouncer();
  const secondsLeft = useSecondsLeft(shown?.deadline ?? null);
  const container = useRef<HTMLElement | null>(null);
  const revealButton = useRef<HTMLElement | null>(null);
  const hideButton = useRef<HTMLElement | null>(null);
  // Whether the keyboard focus was inside the revealed values when they went away.
  const focusWasInside = useRef(false);

  const hide = (message: string) => {
    const active = document.activeElement;
    focusWasInside.current = active === document.body || (active !== null && container.current?.contains(active) === true);
    setShown(null);
    announce(message);
  };

  useEffect(() => {
    if (shown !== null && secondsLeft === 0) hide(t('reveal.hiddenAgain'));
  });

  // The button pressed is replaced by the values and they by the button again; focus follows so it is never lost.
  useEffect(() => {
    if (shown !== null) hideButton.current?.focus();
    else if (focusWasInside.current) {
      focusWasInside.current = false;
      revealButton.current?.focus();
    }
  }, [shown]);

  const handleReveal = async () => {
    if (pending) return;
    setPending(true);
    setError(null);
    try {
      const result = await reveal();
      const total = Math.max(1, Math.floor(result.expiresInSeconds));
      setShown({ passwords: result.passwords, deadline: Date.now() + total * 1000, total });
      announce(t('reveal.shown', { count: total }));
    } catch (failure) {
      setError(readServerError(failure).message);
    } finally {
      setPending(false);
    }
  };

  return (
    <View as="div" elementRef={(element) => void (container.current = element as HTMLElement | null)}>
      {announcement}
      {shown === null ? (
        <Button
          renderIcon={<IconEyeLine />}
          onClick={handleReveal}
          elementRef={(element) => void (revealButton.current = element as HTMLElement | null)}
        >
          {pending ? t('reveal.revealing') : t('reveal.button')}
        </Button>
      ) : (
        <View as="div" padding="small" borderWidth="small" borderRadius="medium" background="secondary">
          <Flex justifyItems="space-between" alignItems="center" wrap="wrap" gap="small" margin="0 0 small">
            <Text weight="bold">{t('reveal.title', { subject })}</Text>
            <Flex gap="small" alignItems="center">
              <Text size="small" color="secondary">
                {t('reveal.hiddenIn', { seconds: new Intl.NumberFormat(i18n.language).format(secondsLeft ?? shown.total) })}
              </Text>
              <Button
                size="small"
                renderIcon={<IconOffLine />}
                onClick={() => hide(t('reveal.hidden'))}
                elementRef={(element) => void (hideButton.current = element as HTMLElement | null)}
              >
                {t('reveal.hideNow')}
              </Button>
            </Flex>
          </Flex>
          <dl className="exb-dl" aria-label={t('reveal.title', { subject })}>
            <RevealedRow name={t('passwords.start')} copyName={t('passwords.noun.start')} entry={shown.passwords.start} />
            <RevealedRow name={t('passwords.exit')} copyName={t('passwords.noun.exit')} entry={shown.passwords.exit} />
            {shown.passwords.accessCode !== undefined && (
              <RevealedRow name={t('reveal.accessCode')} copyName={t('passwords.noun.accessCode')} entry={shown.passwords.accessCode} />
            )}
          </dl>
        </View>
      )}
      {error !== null && (
        <Alert variant="error" variantScreenReaderLabel={t('common:variant.error')} hasShadow={false} margin="small 0 0">
          {error}
        </Alert>
      )}
    </View>
  );
}

function RevealedRow({ name, copyName, entry }: { name: string; copyName: string; entry: { value: string | null; source: Source; mismatch?: string | null } }) {
  const { t } = useTranslation('teacher');
  let value;
  if (entry.source === 'managed') {
    value = (
      <Text>
        {t('reveal.schoolDefault')} <Text color="secondary">{t('reveal.hiddenValue')}</Text>
      </Text>
    );
  } else if (entry.value === null) {
    value = <Text color="secondary">{t('passwords.notSet')}</Text>;
  } else {
    value = (
      <span className="exb-row exb-row--wrap">
        <code className="exb-value">{entry.value}</code>
        <CopyButton value={entry.value} label={copyName} />
      </span>
    );
  }
  return (
    <>
      <dt>
        <Text weight="bold">{name}</Text>
      </dt>
      <dd>
        {value}
        {entry.source !== 'none' && entry.source !== 'managed' && (
          <Text as="div" size="small" color="secondary">
            {t(`reveal.source.${entry.source}`)}
          </Text>
        )}
        {/* An access code read from the LMS that is not the one exam browsers receive is never shown as if it were. */}
        {entry.mismatch != null && (
          <Text as="div" size="small" color="danger">
            {t('reveal.mismatch', { reason: verificationReasonText(entry.mismatch) })}
          </Text>
        )}
      </dd>
    </>
  );
}
