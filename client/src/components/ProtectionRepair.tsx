import type { VerificationStatus } from '@exb/shared/verification-status.js';
import { Button, Flex, Text, View } from '@instructure/ui';
import { useTranslation } from 'react-i18next';
import { verificationReasonText } from '../lib/verification-reasons';

/** The states of an LMS check that need words: every one but a confirmed code. */
export type UnconfirmedStatus = Exclude<VerificationStatus, 'verified'>;

export interface ProtectionRepairProps {
  status: UnconfirmedStatus;
  /** The reason the server stored with the check (its English sentence), or none. */
  reason: string | null;
  onReapply: () => void;
  onAccept: () => void;
  /** The repair buttons cannot be used now (a repair runs, or the LMS is not connected). */
  disabled: boolean;
  /** Why the last repair failed, in the service's words. */
  failure: string | null;
}

/**
 * Why the LMS does not hold the access code exam browsers receive, and the two repairs: put the stored code back in
 * the LMS, or (a code someone set in the LMS on purpose) make the LMS's code the released one. The teacher's and the
 * administrator's views both show it, each calling its own routes.
 */
export function ProtectionRepair({ status, reason, onReapply, onAccept, disabled, failure }: ProtectionRepairProps) {
  const { t } = useTranslation('teacher');
  const interaction = disabled ? 'disabled' : 'enabled';
  return (
    <View as="div" margin="xx-small 0 0">
      <Text as="p" size="small">
        {reason !== null ? verificationReasonText(reason) : t(`verification.line.${status}`)}
      </Text>
      {status !== 'unverified' && (
        <Flex gap="x-small" wrap="wrap" margin="xx-small 0 0">
          <Button size="small" color="primary" interaction={interaction} onClick={onReapply}>
            {t('verification.reapply')}
          </Button>
          {status === 'stale' && (
            <Button size="small" interaction={interaction} onClick={onAccept}>
              {t('verification.accept')}
            </Button>
          )}
        </Flex>
      )}
      {failure !== null && (
        <Text as="p" size="small" color="danger">
          {failure}
        </Text>
      )}
    </View>
  );
}
