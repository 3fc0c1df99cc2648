import { Button, Flex, Spinner, TextArea, View } from '@instructure/ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ADMIN_CONNECT_MAX_COURSES, parseCourseIdInput } from '@exb/shared/admin-courses.js';
import { ConnectResults, useConnectCourses } from './ConnectResults';

/** Connects courses named by pasted ids or course addresses, in any mix of separators. */
export function PasteConnect({ lmsOrigin, onConnected }: { lmsOrigin: string | undefined; onConnected: () => void }) {
  const { t } = useTranslation('admin');
  const [text, setText] = useState('');
  const { connect, outcome, failure } = useConnectCourses(onConnected);
  const parsed = parseCourseIdInput(text, lmsOrigin);
  const count = parsed.courseIds.length;
  const tooMany = count > ADMIN_CONNECT_MAX_COURSES;

  const hint = tooMany
    ? t('paste.tooMany', { count, max: ADMIN_CONNECT_MAX_COURSES })
    : text.trim() === ''
      ? t('paste.hint')
      : parsed.unrecognized.length > 0
        ? t('paste.recognizedSome', { count, entries: parsed.unrecognized.join(', ') })
        : t('paste.recognized', { count });
  const messages = [
    ...(failure !== null ? [{ type: 'newError' as const, text: failure }] : []),
    { type: tooMany ? ('newError' as const) : ('hint' as const), text: hint },
  ];

  return (
    <View as="div">
      <TextArea label={t('paste.label')} value={text} onChange={(event) => setText(event.target.value)} height="5rem" messages={messages} />
      <Flex gap="small" alignItems="center" margin="small 0 0">
        <Button
          color="primary"
          interaction={count === 0 || tooMany ? 'disabled' : 'enabled'}
          onClick={() => {
            if (!connect.isPending) connect.mutate({ input: text });
          }}
        >
          {connect.isPending ? t('connect.connecting') : count === 0 ? t('paste.connectNone') : t('paste.connect', { count })}
        </Button>
        {connect.isPending && <Spinner renderTitle={t('paste.connecting')} size="x-small" />}
      </Flex>
      {outcome !== null && <ConnectResults outcome={outcome} names={new Map()} />}
    </View>
  );
}
