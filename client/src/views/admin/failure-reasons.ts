import { EXB_POLICY_LIMITS } from '@exb/shared/exb-policy.js';
import { i18next } from '../../i18n/i18n';

/** The error codes a course's own answer can carry that have words of their own (`admin:failure.*`). */
const REASONS = {
  COURSE_UPDATE_IN_PROGRESS: 'updateInProgress',
  COURSE_RESET_IN_PROGRESS: 'resetInProgress',
  ADMIN_COURSE_NOT_CONNECTED: 'notConnected',
  ADMIN_COURSE_NOT_IN_ACCOUNT: 'notInAccount',
  TOOL_ID_TAKEN: 'toolIdTaken',
  LMS_AUTHORIZATION_REQUIRED: 'authorizationRequired',
  LMS_PERMISSION_DENIED: 'permissionDenied',
} as const;

/**
 * Why one course could not be connected or updated, in words, by the error code its answer carried (the message
 * beside the code is the API's, in English). `fallback` is said for a code without words of its own.
 */
export function courseFailureReason(errorCode: string | null | undefined, fallback: string): string {
  if (errorCode === 'CATALOG_FULL') return i18next.t('admin:failure.catalogFull', { count: EXB_POLICY_LIMITS.catalogTools });
  if (errorCode != null && Object.hasOwn(REASONS, errorCode)) return i18next.t(`admin:failure.${REASONS[errorCode as keyof typeof REASONS]}`);
  return errorCode?.startsWith('LMS_') ? i18next.t('admin:failure.lms') : fallback;
}
