import { EXB_POLICY_LIMITS } from '@exb/shared/exb-policy.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { i18next } from '../../i18n/i18n';

/** The error codes a course's own answer can carry that have words of their own (`admin:failure.*`). */
const REASONS: Readonly<Record<string, 'updateInProgress' | 'resetInProgress' | 'notConnected' | 'notInAccount' | 'toolIdTaken' | 'authorizationRequired' | 'permissionDenied'>> = {
  [ErrorCodes.COURSE_UPDATE_IN_PROGRESS]: 'updateInProgress',
  [ErrorCodes.COURSE_RESET_IN_PROGRESS]: 'resetInProgress',
  [ErrorCodes.ADMIN_COURSE_NOT_CONNECTED]: 'notConnected',
  [ErrorCodes.ADMIN_COURSE_NOT_IN_ACCOUNT]: 'notInAccount',
  [ErrorCodes.TOOL_ID_TAKEN]: 'toolIdTaken',
  [ErrorCodes.LMS_AUTHORIZATION_REQUIRED]: 'authorizationRequired',
  [ErrorCodes.LMS_PERMISSION_DENIED]: 'permissionDenied',
};

/**
 * Why one course could not be connected or updated, in words, by the error code its answer carried (the message
 * beside the code is the API's, in English). `fallback` is said for a code without words of its own.
 */
export function courseFailureReason(errorCode: string | null | undefined, fallback: string): string {
  if (errorCode === ErrorCodes.CATALOG_FULL) return i18next.t('admin:failure.catalogFull', { count: EXB_POLICY_LIMITS.catalogTools });
  const reason = errorCode != null && Object.hasOwn(REASONS, errorCode) ? REASONS[errorCode] : undefined;
  if (reason !== undefined) return i18next.t(`admin:failure.${reason}`);
  return errorCode?.startsWith('LMS_') ? i18next.t('admin:failure.lms') : fallback;
}
