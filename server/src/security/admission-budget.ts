import { isIPv6 } from 'node:net';
import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** The table created by the admission-budget migration; every distributed budget shares it under its own key prefix. */
export const ADMISSION_BUDGET_TABLE = 'admission_budget';

/**
 * The contract's `retry-after` of every answer refused for a spent budget: logins and launches (Document 1) and the
 * exam-browser routes (Document 3), 60 seconds each.
 */
export const RATE_LIMIT_RETRY_AFTER_SECONDS = 60;

export type AdmissionDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** A number of points per key and window; each `consume` takes one. */
export interface AdmissionBudget {
  consume(key: string): Promise<AdmissionDecision>;
}

export interface BudgetSize {
  /** Distinct per budget: it prefixes every key, so budgets never share counters. */
  name: string;
  points: number;
  durationSeconds: number;
}

class LimiterBudget implements AdmissionBudget {
  constructor(private readonly limiter: RateLimiterAbstract) {}

  async consume(key: string): Promise<AdmissionDecision> {
    try {
      await this.limiter.consume(key);
      return { allowed: true };
    } catch (rejection) {
      // The library rejects with its result object when the budget is spent and with an Error when the store fails;
      // a store failure is not a spent budget and must surface as a failure.
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
      throw rejection;
    }
  }
}

/** Counters in this process only: cheap, and stops a flood before it costs a database round trip. */
export function memoryBudget(size: BudgetSize): AdmissionBudget {
  return new LimiterBudget(new RateLimiterMemory({ keyPrefix: size.name, points: size.points, duration: size.durationSeconds }));
}

/** Counters in PostgreSQL, shared by every instance of the service. */
export function postgresBudget(size: BudgetSize, pool: Pool): AdmissionBudget {
  return new LimiterBudget(
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: ADMISSION_BUDGET_TABLE,
      tableCreated: true,
      keyPrefix: size.name,
      points: size.points,
      duration: size.durationSeconds,
    }),
  );
}

/** Consumes from each budget in order and stops at the first refusal, so later (costlier) budgets are not charged. */
export function layeredBudget(...budgets: AdmissionBudget[]): AdmissionBudget {
  return {
    async consume(key) {
      for (const budget of budgets) {
        const decision = await budget.consume(key);
        if (!decision.allowed) return decision;
      }
      return { allowed: true };
    },
  };
}

/** Admission of one request from a client address, counted in a budget under the address's key. */
export type AddressAdmission = (ip: string) => Promise<AdmissionDecision>;

/** Admits requests against `budget` per client address ({@link clientAddressKey}). */
export function perClientAddress(budget: AdmissionBudget): AddressAdmission {
  return (ip) => budget.consume(clientAddressKey(ip));
}

/**
 * The key a client address is budgeted under. An IPv6 client usually controls a whole /64, so it counts as one; an
 * IPv4-mapped address counts as its IPv4 address.
 */
export function clientAddressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::', 2);
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
