import { isErrorCode } from '@exb/shared/error-codes.js';
import { i18next } from '../i18n/i18n';

/**
 * A refusal's `error_code` told in the page's language (`errors:<code>`); `undefined` for anything that is not a code of
 * the contract. The JSON API's own `message` stays English, so a view shows this instead.
 */
export function errorMessage(code: unknown): string | undefined {
  return isErrorCode(code) ? i18next.t(`errors:${code}`) : undefined;
}
