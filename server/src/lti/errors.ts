import { ErrorCodes } from '@exb/shared/error-codes.js';
import { LAUNCH_REFUSAL_STATUS, type LaunchRefusalCode } from '@exb/shared/launch-refusal-status.js';
import type { Catalogue } from '@exb/shared/i18n/catalogues.js';
import { DEFAULT_LOCALE, type Locale } from '@exb/shared/i18n/locale.js';
import { translator } from '../i18n/translator.js';

/**
 * Why a login or launch was refused. Codes are shown on the error page (they name the failed check, never a value), so
 * an administrator can tell a stale registration from an expired launch without reading server logs. They and their
 * statuses are listed beside the error-code catalogue (`shared/src/launch-refusal-status.ts`).
 */
export const LTI_ERROR_CODES = Object.keys(LAUNCH_REFUSAL_STATUS) as readonly LaunchRefusalCode[];

export type LtiErrorCode = LaunchRefusalCode;

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
  /** The code's status, from the catalogue. */
  readonly status: number;
  readonly title: string;
  readonly details: string[];

  constructor(
    readonly code: LtiErrorCode,
    readonly titleKey: RefusalTitleKey,
    readonly explanation: RefusalText,
    readonly detailTexts: readonly RefusalText[] = [],
  ) {
    super(word(DEFAULT_LOCALE, explanation));
    this.name = 'LtiError';
    this.status = LAUNCH_REFUSAL_STATUS[code];
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

/** A check of the id_token failed: the generic launch explanation and the failed check's code. */
export function tokenError(code: LtiErrorCode, key: RefusalKey): LtiError {
  return new LtiError(code, 'launchNotVerified', { key });
}

/** The LMS sent custom fields the registration asks for without expanding them: the registration is out of date. */
export class LmsLtiConfigurationError extends LtiError {
  constructor(readonly problems: RefusalText[]) {
    const code = ErrorCodes.LmsLtiConfigurationError;
    super(code, 'registrationOutdated', { key: 'registrationOutdated' }, problems);
    this.name = code;
  }
}

/** Too many logins or launches from one network or for one login state (Document 1); answered with `retry-after`. */
export function rateLimitedError(): LtiError {
  return new LtiError(ErrorCodes.RATE_LIMITED, 'tooManyLaunches', { key: 'tooManyLaunches' });
}
