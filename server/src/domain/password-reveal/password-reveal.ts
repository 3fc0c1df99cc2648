import {
  resolveExitPassword,
  resolveStartPassword,
  type ExitPasswordSource,
  type ResolvedPassword,
  type StartPasswordSource,
} from '../settings/effective-settings.js';
import type { SettingsRepository } from '../settings/settings-repository.js';

/** Document 2: reveals are a hint to show the values briefly. */
export const PASSWORD_REVEAL_EXPIRES_IN_SECONDS = 30;

/** Response headers of every reveal: the answer must not stay in any cache or history. */
export const PASSWORD_REVEAL_HEADERS = {
  'cache-control': 'no-store, max-age=0',
  pragma: 'no-cache',
  expires: '0',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

export interface PasswordReveal {
  readonly success: true;
  readonly expiresInSeconds: number;
  readonly passwords: {
    readonly start: ResolvedPassword<StartPasswordSource>;
    readonly exit: ResolvedPassword<ExitPasswordSource>;
  };
}

/** The managed server default is the operator's secret: its source is shown, its value never is. */
function withoutManagedValue(exit: ResolvedPassword<ExitPasswordSource>): ResolvedPassword<ExitPasswordSource> {
  return exit.source === 'managed' ? { value: null, source: 'managed' } : exit;
}

function reveal(start: ResolvedPassword<StartPasswordSource>, exit: ResolvedPassword<ExitPasswordSource>): PasswordReveal {
  return { success: true, expiresInSeconds: PASSWORD_REVEAL_EXPIRES_IN_SECONDS, passwords: { start, exit: withoutManagedValue(exit) } };
}

/** The effective start and exit passwords, resolved by the same rules the configuration builder uses. */
export class PasswordRevealService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly managedExitPassword: string | null | undefined,
  ) {}

  async revealCourse(courseId: string): Promise<PasswordReveal> {
    const defaults = await this.settings.loadCourseDefaults(courseId);
    return reveal(
      resolveStartPassword({ startPasswordOverride: null }, defaults),
      resolveExitPassword(null, defaults, this.managedExitPassword),
    );
  }

  async revealAssessment(courseId: string, contentId: string): Promise<PasswordReveal> {
    const { assessment, courseDefaults } = await this.settings.loadPolicyInputs(courseId, contentId);
    return reveal(
      resolveStartPassword(assessment ?? { startPasswordOverride: null }, courseDefaults),
      resolveExitPassword(assessment, courseDefaults, this.managedExitPassword),
    );
  }
}
