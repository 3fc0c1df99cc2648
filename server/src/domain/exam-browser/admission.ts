import type { Pool } from 'pg';
import { layeredBudget, memoryBudget, perClientAddress, postgresBudget, type AddressAdmission, type AdmissionBudget, type AdmissionDecision } from '../../security/admission-budget.js';
import { sha256Hex } from '../../security/random-token.js';

/**
 * Admission budgets of the student routes, per minute. Sized for a school behind one address: a class of several
 * hundred students starting an exam together (each a grant, a HEAD and a GET of the download, a few proofs and
 * redemptions on page loads) fits; a client hammering a route does not.
 *
 * Config grants are counted per principal in PostgreSQL (every instance sees the same count) behind a process-local
 * per-address budget that sheds floods before they cost a database round trip. The public hot paths (proof,
 * redemption, download) keep process-local budgets only: a distributed budget would add a database write to every
 * request, and what they guard against (flooding) is local to the instance receiving it. Their tokens are 256-bit,
 * so no budget is needed against guessing.
 */
export interface ExamBrowserBudgetSizes {
  grantPerPrincipal: number;
  grantPerIp: number;
  downloadPerIp: number;
  proofPerIp: number;
  redeemPerIp: number;
  /** Requirement answers that need a database lookup; cached answers are free, so a class rarely spends any. */
  requirementLookupPerIp: number;
  readinessPerPrincipal: number;
}

export const DEFAULT_EXAM_BROWSER_BUDGETS: ExamBrowserBudgetSizes = {
  grantPerPrincipal: 30,
  grantPerIp: 1200,
  downloadPerIp: 1800,
  proofPerIp: 3000,
  redeemPerIp: 3000,
  requirementLookupPerIp: 600,
  readinessPerPrincipal: 20,
};

export const BUDGET_WINDOW_SECONDS = 60;

export class ExamBrowserAdmission {
  readonly configDownload: AddressAdmission;
  readonly proof: AddressAdmission;
  readonly redemption: AddressAdmission;
  readonly requirementLookup: AddressAdmission;
  private readonly grant: { ip: AddressAdmission; principal: AdmissionBudget };
  private readonly readinessBudget: AdmissionBudget;

  constructor(pool: Pool, sizes: ExamBrowserBudgetSizes) {
    const window = BUDGET_WINDOW_SECONDS;
    const perAddress = (name: string, points: number) => perClientAddress(memoryBudget({ name, points, durationSeconds: window }));
    this.grant = {
      ip: perAddress('exb-grant-ip', sizes.grantPerIp),
      principal: postgresBudget({ name: 'exb-grant-principal', points: sizes.grantPerPrincipal, durationSeconds: window }, pool),
    };
    this.configDownload = perAddress('exb-download-ip', sizes.downloadPerIp);
    this.proof = perAddress('exb-proof-ip', sizes.proofPerIp);
    this.redemption = perAddress('exb-redeem-ip', sizes.redeemPerIp);
    this.requirementLookup = perAddress('exb-requirement-ip', sizes.requirementLookupPerIp);
    this.readinessBudget = memoryBudget({
      name: 'exb-readiness-principal',
      points: sizes.readinessPerPrincipal,
      durationSeconds: window,
    });
  }

  /** The address first, so a refused address does not also drain the principal's shared count. */
  configGrant(ip: string, principal: PrincipalRef): Promise<AdmissionDecision> {
    return layeredBudget(
      { consume: () => this.grant.ip(ip) },
      { consume: () => this.grant.principal.consume(principalKey(principal)) },
    ).consume('');
  }

  readiness(principal: PrincipalRef): Promise<AdmissionDecision> {
    return this.readinessBudget.consume(principalKey(principal));
  }
}

type PrincipalRef = { issuer: string; lmsUserId: string };

function principalKey(principal: PrincipalRef): string {
  return sha256Hex(`${principal.issuer}\u0000${principal.lmsUserId}`);
}
