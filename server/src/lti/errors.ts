import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import type { Catalogue } from '@exb/shared/i18n/catalogues.js';
import { DEFAULT_LOCALE, type Locale } from '@exb/shared/i18n/locale.js';
import { translator } from '../i18n/translator.js';

/**
 * Why a login or launch was refused. Codes are shown on the error page (they name the failed check, never a value), so
 * an administrator can tell a stale registration from an expired launch without reading server logs. The two the
 * contract names come from the error-code catalogue.
 */
export const LTI_ERROR_CODES = [
  // Login initiation
  'LTI_LOGIN_INVALID_REQUEST',
  'LTI_LOGIN_ISSUER',
  'LTI_LOGIN_CLIENT_ID',
  'LTI_LOGIN_TARGET',
  'LTI_LOGIN_DEPLOYMENT',
  // Launch envelope, state and browser binding
  'LTI_LAUNCH_PLATFORM_ERROR',
  'LTI_LAUNCH_INVALID_ENVELOPE',
  'LTI_LAUNCH_STATE_INVALID',
  'LTI_LAUNCH_TRANSACTION_MISSING',
  'LTI_LAUNCH_TRANSACTION_MISMATCH',
  'LTI_LAUNCH_STATE_REPLAYED',
  // Token validation
  'LTI_TOKEN_MALFORMED',
  'LTI_TOKEN_ALGORITHM',
  'LTI_TOKEN_UNKNOWN_KEY',
  'LTI_PLATFORM_KEY_TOO_WEAK',
  'LTI_PLATFORM_KEYS_UNAVAILABLE',
  'LTI_TOKEN_SIGNATURE',
  'LTI_TOKEN_ISSUER',
  'LTI_TOKEN_AUDIENCE',
  'LTI_TOKEN_NONCE',
  'LTI_TOKEN_EXPIRED',
  'LTI_TOKEN_ISSUED_IN_FUTURE',
  'LTI_TOKEN_TOO_OLD',
  'LTI_TOKEN_VERSION',
  'LTI_TOKEN_MESSAGE_TYPE',
  'LTI_TOKEN_DEPLOYMENT',
  'LTI_TOKEN_TARGET',
  'LTI_TOKEN_CLAIMS',
  // Login-launch binding
  'LTI_BINDING_ISSUER',
  'LTI_BINDING_DEPLOYMENT',
  'LTI_BINDING_TARGET',
  // After validation
  ErrorCodes.LmsLtiConfigurationError,
  'LTI_DEEP_LINKING_UNSUPPORTED',
  'LTI_IDENTITY_CONFLICT',
  // Session reloads and exam-browser launches
  'LTI_CROSS_SITE_FRAME',
  'LTI_SESSION_MISMATCH',
  'EXB_LAUNCH_NOT_FOR_SESSION',
  'EXB_LAUNCH_COURSE_MISMATCH',
  'EXB_LAUNCH_NOT_FOR_ADMIN',
  // Admission
  ErrorCodes.RATE_LIMITED,
] as const;

export type LtiErrorCode = (typeof LTI_ERROR_CODES)[number];

type LaunchCatalogue = Catalogue['launch'];

/** A title of a refusal page (`launch:refusalTitle.*`). */
export type RefusalTitleKey = keyof LaunchCatalogue['refusalTitle'];

/** A refusal's explanation (`launch:refusal.*`). */
export type RefusalKey = keyof LaunchCatalogue['refusal'];

/** A detail line under a refusal's explanation (`launch:refusalDetail.*`). */
export type RefusalDetailKey = keyof LaunchCatalogue['refusalDetail'];

type Values = Readonly<Record<string, string | number>>;

/** An explanation or a detail line, with the values it names. */
export type RefusalText = { readonly key: RefusalKey; readonly values?: Values } | { readonly detail: RefusalDetailKey; readonly values?: Values };

/** What a refusal page shows, in one language. */
export interface RefusalWording {
  readonly title: string;
  readonly message: string;
  readonly details: string[];
}

function word(locale: Locale, text: RefusalText): string {
  const t = translator(locale);
  const values = text.values ?? {};
  return 'key' in text ? t(`launch:refusal.${text.key}`, values) : t(`launch:refusalDetail.${text.detail}`, values);
}

/**
 * A refused login or launch: the status and the page the user sees, worded from the `launch` catalogue in the
 * language of the request (`wording`); `title`, `message` and `details` are the English wording, for logs and tests.
 * `details` are safe to show (no token values).
 */
export class LtiError extends Error {
  readonly title: string;
  readonly details: string[];

  constructor(
    readonly code: LtiErrorCode,
    readonly status: number,
    readonly titleKey: RefusalTitleKey,
    readonly explanation: RefusalText,
    readonly detailTexts: readonly RefusalText[] = [],
  ) {
    super(word(DEFAULT_LOCALE, explanation));
    this.name = 'LtiError';
    const english = this.wording(DEFAULT_LOCALE);
    this.title = english.title;
    this.details = english.details;
  }

  wording(locale: Locale): RefusalWording {
    return {
      title: translator(locale)(`launch:refusalTitle.${this.titleKey}`),
      message: word(locale, this.explanation),
      details: this.detailTexts.map((text) => word(locale, text)),
    };
  }
}

/** A check of the id_token failed: a `400` with the generic launch explanation and the failed check's code. */
export function tokenError(code: LtiErrorCode, key: RefusalKey): LtiError {
  return new LtiError(code, 400, 'launchNotVerified', { key });
}

/** The LMS sent custom fields the registration asks for without expanding them: the registration is out of date. */
export class LmsLtiConfigurationError extends LtiError {
  constructor(readonly problems: RefusalText[]) {
    const code = ErrorCodes.LmsLtiConfigurationError;
    super(code, errorStatus(code), 'registrationOutdated', { key: 'registrationOutdated' }, problems);
    this.name = code;
  }
}

/** Too many logins or launches from one network or for one login state (Document 1); answered with `retry-after`. */
export function rateLimitedError(): LtiError {
  return new LtiError(ErrorCodes.RATE_LIMITED, errorStatus(ErrorCodes.RATE_LIMITED), 'tooManyLaunches', { key: 'tooManyLaunches' });
}
