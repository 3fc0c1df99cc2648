import type { VerificationStatus } from '@exb/shared/verification-status.js';

/** What a re-apply answers, by what the check right after it found. */
export function repairMessage(status: VerificationStatus): string {
  return status === 'verified'
    ? 'Protection is back in place: the LMS holds the access code again.'
    : 'The access code was sent to the LMS, but the check afterwards did not confirm it. Refresh from the LMS to check again.';
}
