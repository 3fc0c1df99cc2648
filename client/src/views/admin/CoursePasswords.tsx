import { Alert, Button, Flex, Heading, IconResetLine, Text, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useAnnouncer } from '../../components/Announcer';
import { CopyButton } from '../../components/CopyButton';
import { readServerError, useTRPC, useTRPCClient } from '../../lib/trpc';
import { PasswordReveal, useSecondsLeft } from '../teacher/PasswordReveal';

/**
 * The course's start and exit passwords: revealed for the time the server allows, and the exit password replaced by
 * a new random one (shown once, with the same countdown).
 */
export function CoursePasswords({ courseId, courseName }: { courseId: string; courseName: string }) {
  const client = useTRPCClient();
  return (
    <View as="section" display="block" margin="0 0 medium" aria-labelledby="course-passwords-heading">
      <Heading level="h3" id="course-passwords-heading" margin="0 0 x-small">
        Course passwords
      </Heading>
      <Flex gap="small" wrap="wrap" alignItems="start">
        <PasswordReveal subject={courseName} reveal={() => client.admin.courses.revealPasswords.mutate({ courseId })} />
        <RotateExitPassword courseId={courseId} />
      </Flex>
    </View>
  );
}

function RotateExitPassword({ courseId }: { courseId: string }) {
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
        if (result.passwords.exit.value !== null) {
          setShown({ value: result.passwords.exit.value, deadline: Date.now() + result.expiresInSeconds * 1000 });
          announce(`A new exit password is set. It is shown for ${result.expiresInSeconds} seconds.`);
        }
        void queryClient.invalidateQueries({ queryKey: trpc.admin.courses.get.queryKey({ courseId }) });
      },
      onError: (failure) => setError(`${readServerError(failure).message} The exit password was not changed.`),
    }),
  );

  useEffect(() => {
    if (shown !== null && secondsLeft === 0) {
      setShown(null);
      announce('The new exit password is hidden again.');
    }
  }, [shown, secondsLeft, announce]);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);

  return (
    <View as="div">
      {announcement}
      {shown !== null ? (
        <View as="div" padding="small" borderWidth="small" borderRadius="medium" background="secondary">
          <Text as="div" weight="bold">
            New exit password (hidden in {secondsLeft ?? 0} s)
          </Text>
          <span className="exb-row exb-row--wrap">
            <code className="exb-value">{shown.value}</code>
            <CopyButton value={shown.value} label="new exit password" />
          </span>
          <Text as="p" size="small" color="secondary">
            Write it down now: it is shown only this once. Every quiz of the course without its own exit password uses it.
          </Text>
        </View>
      ) : confirming ? (
        <View as="div" padding="small" borderWidth="small" borderRadius="medium">
          <Text as="p">Replace the course’s exit password with a new random one? Students already in an exam leave with the new one.</Text>
          <Flex gap="small">
            <Button
              color="danger"
              elementRef={(element) => void (confirmButton.current = element as HTMLElement | null)}
              onClick={() => {
                if (!rotate.isPending) rotate.mutate({ courseId });
              }}
            >
              {rotate.isPending ? 'Replacing…' : 'Replace exit password'}
            </Button>
            <Button onClick={() => setConfirming(false)}>Cancel</Button>
          </Flex>
        </View>
      ) : (
        <Button renderIcon={<IconResetLine />} onClick={() => setConfirming(true)}>
          New exit password
        </Button>
      )}
      {error !== null && (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false} margin="small 0 0">
          {error}
        </Alert>
      )}
    </View>
  );
}
