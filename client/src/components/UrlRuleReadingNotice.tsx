import { Button, Flex, Text, View } from '@instructure/ui';
import type { PolicyMessageRef } from '@exb/shared/exb-policy.js';
import { useTranslation } from 'react-i18next';
import { translatePolicyMessage } from '../lib/trpc';

/** A stored URL rule the exam browser reads differently (`storedRuleReading` on the server), as the views receive it. */
export interface UrlRuleReading {
  readonly source: 'course' | 'assessment';
  readonly match: 'exact' | 'domain';
  readonly value: string;
  readonly reason: { readonly messageKey: string; readonly values?: Readonly<Record<string, unknown>> };
  readonly faithful: string | null;
}

/** An address as code, broken anywhere: a long address must not widen a narrow table's stacked rows. */
function Address({ value }: { value: string }) {
  return <code style={{ overflowWrap: 'anywhere', wordBreak: 'break-all' }}>{value}</code>;
}

/**
 * One marked rule beside an assessment's verification: the rule, why the exam browser reads it differently, and the
 * repair: one click to its faithful form where one means the same page, otherwise a way to the editor at that rule.
 * Shared by the teacher's view and the administrator's course detail, which supply the actions.
 */
export function UrlRuleReadingNotice({
  reading,
  onRewrite,
  onChange,
  busy,
  error,
  changedByTeachers = false,
}: {
  reading: UrlRuleReading;
  /** Absent where the viewer may not rewrite (then only the explanation shows). */
  onRewrite?: (() => void) | undefined;
  /** Opens the editor at the rule; absent where the viewer has no editor. */
  onChange?: (() => void) | undefined;
  busy: boolean;
  error?: string | null | undefined;
  /** The viewer is not the one who changes a rule without a faithful form (the administrator): say who does. */
  changedByTeachers?: boolean;
}) {
  const { t } = useTranslation('teacher');
  const reason = translatePolicyMessage(reading.reason as PolicyMessageRef);
  return (
    <View as="div" margin="xx-small 0 x-small" borderWidth="0 0 0 medium" borderColor="warning" padding="0 0 0 x-small">
      <Text as="p" size="small" weight="bold">
        {t('urlRuleReadings.title')}
      </Text>
      <Text as="p" size="small" wrap="break-word">
        {t(reading.source === 'course' ? 'urlRuleReadings.inCourse' : 'urlRuleReadings.inAssessment')}{' '}
        <Address value={reading.value} />
      </Text>
      <Text as="p" size="small">
        {reason}
      </Text>
      {reading.faithful !== null ? (
        <Text as="p" size="small" wrap="break-word">
          {t('urlRuleReadings.faithful')} <Address value={reading.faithful} />
        </Text>
      ) : (
        <Text as="p" size="small">
          {t(changedByTeachers ? 'urlRuleReadings.noFaithfulElsewhere' : 'urlRuleReadings.noFaithful')}
        </Text>
      )}
      <Flex gap="x-small" wrap="wrap" margin="xx-small 0 0">
        {reading.faithful !== null && onRewrite !== undefined && (
          <Button size="small" color="primary" interaction={busy ? 'disabled' : 'enabled'} onClick={onRewrite}>
            {t('urlRuleReadings.rewrite')}
          </Button>
        )}
        {reading.faithful === null && onChange !== undefined && (
          <Button size="small" onClick={onChange}>
            {t('urlRuleReadings.change')}
          </Button>
        )}
      </Flex>
      {error ? (
        <Text as="p" size="small" color="danger">
          {error}
        </Text>
      ) : null}
    </View>
  );
}
