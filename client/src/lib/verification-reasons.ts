// The English words only, not the whole catalogue: the server stores a check's reason as its English sentence.
import { verification } from '../../../shared/src/i18n/locales/en/teacher.json';
import { i18next } from '../i18n/i18n';

type ReasonKey = keyof typeof verification.reason;

/**
 * A reason the server gave for an unconfirmed access code, in the page's language. The server stores the English
 * sentences of `teacher:verification.reason` (a server test holds the two equal); a reason it words otherwise is
 * shown as it came.
 */
export function verificationReasonText(reason: string): string {
  const key = (Object.keys(verification.reason) as ReasonKey[]).find((name) => verification.reason[name] === reason);
  return key === undefined ? reason : i18next.t(`teacher:verification.reason.${key}`);
}
