import { Button, Flex, Heading, IconResetLine, Text, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { CopyButton } from '../../components/CopyButton';
import { StatusAlert } from '../../components/StatusAlert';
import { readServerError, useTRPC, useTRPCClient } from '../../lib/trpc';
import { PasswordReveal, useSecondsLeft } from '../../components/PasswordReveal';

/**
 * The course's start and exit passwords: revealed for the time the server allows, and the exit password replaced by
 * a new random one (shown once, with the same countdown).
 */
export function CoursePasswords({ courseId, courseName }: { courseId: string; courseName: string }) {
  const { t } = useTranslation('admin');
  const client = useTRPCClient();
  // A new exit password makes any revealed one stale: the reveal starts over, hidden, so only the current one shows.
  const [rotations, setRotations] = useState(0);
  return (
    <View as="section" display="block" margin="0 0 medium" aria-labelledby="course-passwords-heading">
      <Heading level="h3" id="course-passwords-heading" margin="0 0 x-small">
        {t('passwords.heading')}
      </Heading>
      <Flex gap="small" wrap="wrap" alignItems="start">
        <PasswordReveal key={rotations} subject={courseName} reveal={() => client.admin.courses.revealPasswords.mutate({ courseId })} />
        <RotateExitPassword courseId={courseId} onRotated={() => setRotations((count) => count + 1)} />
      </Flex>
    </View>
  );
}

function RotateExitPassword({ courseId, onRotated }: { courseId: string; onRotated: () => void }) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [shown, setShown] = useState<{ value: string; deadline: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [announcement, announce] = useAnnouncer();
  const secondsLeft = useSecondsLeft(shown?.deadline ?? null);
  const confirmButton = useRef<HTMLElement | null>(null);
  const rotate = useMutation(
    trpc.admin.courses.rotateExitPassword.mutationOptions({
      onMutate: () => setError(null),
      onSuccess: (result) => {
        setConfirming(false);
        onRotated();
        if (result.passwords.exit.value !== null) {
          setShown({ value: result.passwords.exit.value, deadline: Date.now() + result.expiresInSeconds * 1000 });
          announce(t('passwords.rotated', { count: result.expiresInSeconds }));
        }
        void queryClient.invalidateQueries({ queryKey: trpc.admin.courses.get.queryKey({ courseId }) });
      },
      onError: (failure) => setError(t('passwords.rotateFailed', { reason: readServerError(failure).message })),
    }),
  );

  useEffect(() => {
    if (shown !== null && secondsLeft === 0) {
      setShown(null);
      announce(t('passwords.hiddenAgain'));
    }
  }, [shown, secondsLeft, announce, t]);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);

  return (
    <View as="div">
      {announcement}
      {shown !== null ? (
        <View as="div" padding="small" borderWidth="small" borderRadius="medium" background="secondary">
          <Text as="div" weight="bold">
            {t('passwords.newShown', { seconds: secondsLeft ?? 0 })}
          </Text>
          <span className="exb-row exb-row--wrap">
            <code className="exb-value">{shown.value}</code>
            <CopyButton value={shown.value} label={t('passwords.copyLabel')} />
          </span>
          <Text as="p" size="small" color="secondary">
            {t('passwords.writeDown')}
          </Text>
        </View>
      ) : confirming ? (
        <View as="div" padding="small" borderWidth="small" borderRadius="medium">
          <Text as="p">{t('passwords.confirm')}</Text>
          <Flex gap="small">
            <Button
              color="danger"
              elementRef={(element) => void (confirmButton.current = element as HTMLElement | null)}
              onClick={() => {
                if (!rotate.isPending) rotate.mutate({ courseId });
              }}
            >
              {rotate.isPending ? t('passwords.replacing') : t('passwords.replace')}
            </Button>
            <Button onClick={() => setConfirming(false)}>{t('cancel')}</Button>
          </Flex>
        </View>
      ) : (
        <Button renderIcon={<IconResetLine />} onClick={() => setConfirming(true)}>
          {t('passwords.rotate')}
        </Button>
      )}
      {error !== null && <StatusAlert margin="small 0 0">{error}</StatusAlert>}
    </View>
  );
}
