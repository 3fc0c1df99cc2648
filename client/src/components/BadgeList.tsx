import { Flex, Text } from '@instructure/ui';
import type { ReactNode } from 'react';

/** A row of status badges that wraps on a narrow frame, or one quiet line when there is none to show. */
export function BadgeList({ badges, emptyLabel }: { badges: readonly ReactNode[]; emptyLabel: string }) {
  if (badges.length === 0) {
    return (
      <Text size="small" color="secondary">
        {emptyLabel}
      </Text>
    );
  }
  return (
    <Flex gap="xx-small" wrap="wrap">
      {badges}
    </Flex>
  );
}
