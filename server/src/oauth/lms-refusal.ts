import { ADMIN_AND_APPLICATION_SCOPES, EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import { systemClock, type Clock } from '../clock.js';

/**
 * The refusals the LMS sends back to the redirect URI instead of a code (Canvas `oauth2_provider_controller.rb#auth`
 * and `#deny`): `invalid_scope` when the developer key lacks a requested scope (`Canvas::OAuth::Provider#valid_scopes?`,
 * the whole authorization is refused), `unauthorized_client` when the key is not enabled for the account,
 * `unsupported_response_type`, `invalid_request`, and `access_denied` when the user cancels.
 */
export const LMS_REFUSALS = {
  invalid_scope: 'lms-scope-missing',
  unauthorized_client: 'lms-unauthorized-client',
  unsupported_response_type: 'lms-unsupported-response-type',
  invalid_request: 'lms-invalid-request',
  access_denied: 'lms-access-denied',
} as const;

export type LmsRefusalFailure = (typeof LMS_REFUSALS)[keyof typeof LMS_REFUSALS] | 'lms-error';

export function lmsRefusalFailure(error: string): LmsRefusalFailure {
  return Object.hasOwn(LMS_REFUSALS, error) ? LMS_REFUSALS[error as keyof typeof LMS_REFUSALS] : 'lms-error';
}

/** A refusal that only an administrator can fix (the developer key), as opposed to a user's own cancel. */
export function isConfigurationRefusal(failure: LmsRefusalFailure): boolean {
  return failure !== 'lms-access-denied' && failure !== 'lms-error';
}

const KNOWN_SCOPES: ReadonlySet<string> = new Set([...ADMIN_AND_APPLICATION_SCOPES, ...Object.values(EXAM_DAY_SCOPES)]);

/**
 * The scopes an `invalid_scope` description names. Canvas writes "… The following scopes were requested, but not
 * granted: a, b, and c" (`missing_scopes.to_sentence`). Only scopes this service requests are kept: the description
 * arrives in a URL anyone can craft, so nothing else it says is repeated as a scope.
 */
export function missingScopesOf(description: string | undefined): string[] {
  const listed = /not granted:\s*(.*)$/s.exec(description ?? '')?.[1];
  if (!listed) return [];
  const names = listed
    .replace(/\.\s*$/, '')
    .split(/\s*,\s*(?:and\s+)?|\s+and\s+/)
    .map((name) => name.trim());
  return [...new Set(names.filter((name) => KNOWN_SCOPES.has(name)))];
}

export interface RecordedRefusal {
  /** ISO 8601 instant of the callback. */
  at: string;
  /** The LMS's `error`. */
  error: string;
  missingScopes: string[];
}

/**
 * The last configuration refusal this process saw, for the service status page. Only callbacks that carry a pending
 * state of this service are recorded, so a crafted link cannot put a refusal on the page.
 */
export class LmsRefusalLog {
  private latest: RecordedRefusal | undefined;

  constructor(private readonly clock: Clock = systemClock) {}

  record(error: string, missingScopes: string[]): void {
    this.latest = { at: new Date(this.clock()).toISOString(), error, missingScopes };
  }

  last(): RecordedRefusal | undefined {
    return this.latest;
  }
}
