import { Button, Flex, Spinner, TextArea, View } from '@instructure/ui';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ADMIN_CONNECT_MAX_COURSES, parseCourseIdInput } from '@exb/shared/admin-courses.js';
import { readServerError, useTRPC } from '../../lib/trpc';
import { ConnectResults } from './ConnectResults';
import type { ConnectOutcome } from './model';

/** Connects courses named by pasted ids or course addresses, in any mix of separators. */
export function PasteConnect({ lmsOrigin, onConnected }: { lmsOrigin: string | undefined; onConnected: () => void }) {
  const trpc = useTRPC();
  const [text, setText] = useState('');
  const [outcome, setOutcome] = useState<ConnectOutcome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const parsed = parseCourseIdInput(text, lmsOrigin);
  const count = parsed.courseIds.length;
  const tooMany = count > ADMIN_CONNECT_MAX_COURSES;
  const connect = useMutation(
    trpc.admin.courses.connect.mutationOptions({
      onMutate: () => {
        setError(null);
        setOutcome(null);
      },
      onSuccess: (result) => {
        setOutcome(result);
        onConnected();
      },
      onError: (failure) => setError(readServerError(failure).message),
    }),
  );

  const hint = tooMany
    ? `${count} courses recognized: connect at most ${ADMIN_CONNECT_MAX_COURSES} at a time.`
    : text.trim() === ''
      ? 'Course ids or course addresses from the LMS, separated by spaces, commas or new lines.'
      : `${count} course${count === 1 ? '' : 's'} recognized${parsed.unrecognized.length > 0 ? `; not recognized: ${parsed.unrecognized.join(', ')}` : ''}.`;
  const messages = [
    ...(error !== null ? [{ type: 'newError' as const, text: error }] : []),
    { type: tooMany ? ('newError' as const) : ('hint' as const), text: hint },
  ];

  return (
    <View as="div">
      <TextArea label="Course ids or course addresses" value={text} onChange={(event) => setText(event.target.value)} height="5rem" messages={messages} />
      <Flex gap="small" alignItems="center" margin="small 0 0">
        <Button
          color="primary"
          interaction={count === 0 || tooMany ? 'disabled' : 'enabled'}
          onClick={() => {
            if (!connect.isPending) connect.mutate({ input: text });
          }}
        >
          {connect.isPending ? 'Connecting…' : `Connect ${count === 0 ? '' : `${count} `}course${count === 1 ? '' : 's'}`}
        </Button>
        {connect.isPending && <Spinner renderTitle="Connecting the courses in the LMS" size="x-small" />}
      </Flex>
      {outcome !== null && <ConnectResults outcome={outcome} names={new Map()} />}
    </View>
  );
}
