import type { AuditLog } from '../../audit/audit-log.js';
import { audited, type AuditedBy } from '../../audit/audited.js';
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

/** Which passwords a reveal showed and where each came from; never a value. */
function revealed(answer: PasswordReveal) {
  return { startFrom: answer.passwords.start.source ?? 'none', exitFrom: answer.passwords.exit.source ?? 'none' };
}

/**
 * The effective start and exit passwords, resolved by the same rules the configuration builder uses. Every reveal is
 * recorded in the audit trail (`password.reveal`), with the sources shown, so an exam board sees who saw a secret.
 */
export class PasswordRevealService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly managedExitPassword: string | null | undefined,
    private readonly audit: AuditLog,
  ) {}

  revealCourse(by: AuditedBy, courseId: string): Promise<PasswordReveal> {
    return audited(this.audit, by, { action: 'password.reveal', courseId }, () => this.resolveCourse(courseId), revealed);
  }

  /** `extra` lets the administrator's reveal add the LMS's access code inside the same recorded attempt. */
  revealAssessment<T extends PasswordReveal = PasswordReveal>(
    by: AuditedBy,
    courseId: string,
    contentId: string,
    extra: (reveal: PasswordReveal) => Promise<T> = async (reveal) => reveal as T,
  ): Promise<T> {
    return audited(
      this.audit,
      by,
      { action: 'password.reveal', courseId, contentId },
      async () => extra(await this.resolveAssessment(courseId, contentId)),
      (answer) => ({ ...revealed(answer), withLmsCode: answer !== undefined && 'accessCode' in answer.passwords }),
    );
  }

  private async resolveCourse(courseId: string): Promise<PasswordReveal> {
    const defaults = await this.settings.loadCourseDefaults(courseId);
    return reveal(
      resolveStartPassword({ startPasswordOverride: null }, defaults),
      resolveExitPassword(null, defaults, this.managedExitPassword),
    );
  }

  private async resolveAssessment(courseId: string, contentId: string): Promise<PasswordReveal> {
    const { assessment, courseDefaults } = await this.settings.loadPolicyInputs(courseId, contentId);
    return reveal(
      resolveStartPassword(assessment ?? { startPasswordOverride: null }, courseDefaults),
      resolveExitPassword(assessment, courseDefaults, this.managedExitPassword),
    );
  }
}
