import type { Pool } from 'pg';
import {
  clientAddressKey,
  layeredBudget,
  memoryBudget,
  postgresBudget,
  type AdmissionBudget,
  type AdmissionDecision,
} from '../../security/admission-budget.js';
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
  readinessPerPrincipal: number;
}

export const DEFAULT_EXAM_BROWSER_BUDGETS: ExamBrowserBudgetSizes = {
  grantPerPrincipal: 30,
  grantPerIp: 1200,
  downloadPerIp: 1800,
  proofPerIp: 3000,
  redeemPerIp: 3000,
  readinessPerPrincipal: 20,
};

export const BUDGET_WINDOW_SECONDS = 60;

export class ExamBrowserAdmission {
  private readonly grant: { ip: AdmissionBudget; principal: AdmissionBudget };
  private readonly download: AdmissionBudget;
  private readonly proofBudget: AdmissionBudget;
  private readonly redeemBudget: AdmissionBudget;
  private readonly readinessBudget: AdmissionBudget;

  constructor(pool: Pool, sizes: ExamBrowserBudgetSizes) {
    const window = BUDGET_WINDOW_SECONDS;
    this.grant = {
      ip: memoryBudget({ name: 'exb-grant-ip', points: sizes.grantPerIp, durationSeconds: window }),
      principal: postgresBudget({ name: 'exb-grant-principal', points: sizes.grantPerPrincipal, durationSeconds: window }, pool),
    };
    this.download = memoryBudget({ name: 'exb-download-ip', points: sizes.downloadPerIp, durationSeconds: window });
    this.proofBudget = memoryBudget({ name: 'exb-proof-ip', points: sizes.proofPerIp, durationSeconds: window });
    this.redeemBudget = memoryBudget({ name: 'exb-redeem-ip', points: sizes.redeemPerIp, durationSeconds: window });
    this.readinessBudget = memoryBudget({
      name: 'exb-readiness-principal',
      points: sizes.readinessPerPrincipal,
      durationSeconds: window,
    });
  }

  /** The address first, so a refused address does not also drain the principal's shared count. */
  configGrant(ip: string, principal: { issuer: string; lmsUserId: string }): Promise<AdmissionDecision> {
    const principalKey = sha256Hex(`${principal.issuer}\u0000${principal.lmsUserId}`);
    return layeredBudget(
      { consume: () => this.grant.ip.consume(clientAddressKey(ip)) },
      { consume: () => this.grant.principal.consume(principalKey) },
    ).consume('');
  }

  configDownload(ip: string): Promise<AdmissionDecision> {
    return this.download.consume(clientAddressKey(ip));
  }

  proof(ip: string): Promise<AdmissionDecision> {
    return this.proofBudget.consume(clientAddressKey(ip));
  }

  redemption(ip: string): Promise<AdmissionDecision> {
    return this.redeemBudget.consume(clientAddressKey(ip));
  }

  readiness(principal: { issuer: string; lmsUserId: string }): Promise<AdmissionDecision> {
    return this.readinessBudget.consume(sha256Hex(`${principal.issuer}\u0000${principal.lmsUserId}`));
  }
}
