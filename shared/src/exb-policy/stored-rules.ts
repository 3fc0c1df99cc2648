/**
 * Stored URL rules the exam browser reads differently than the editor promises, and the faithful form of those that
 * have one.
 *
 * A rule saved before a save-time refusal existed still loads and still builds configurations (`PolicyCheck` `stored`).
 * Such a rule is exactly one the editor would refuse today: every rule the editor accepts is written as an expression
 * that means what it promises (`exactUrlExpression`, checked against SEB's own decisions), a port-less one included,
 * since the expression always names the port. So the question is answered by the editor's own validator, applied to
 * the stored rule as if it were saved now.
 */
import { normalizeUrlRules } from './url-rules.js';
import { policyMessage, type PolicyMessage } from './messages.js';
import type { ExbUrlRule } from './schemas.js';

/** A stored rule the exam browser reads differently: the rule, why (the refusal a save would give), its faithful form. */
export interface StoredRuleReading {
  readonly match: ExbUrlRule['match'];
  /** The rule's address or site as stored. */
  readonly value: string;
  /** The message a save of this rule would be refused with. */
  readonly reason: PolicyMessage;
  /**
   * The exact address that means the same page and that the editor accepts today, or `null` when there is none and
   * the teacher has to choose another rule.
   */
  readonly faithful: string | null;
}

/**
 * Rewrites of a stored exact address's query into the form the exam browser compares, each meaning the same page to
 * the site as well. The exam browser decodes the request before it compares it, and:
 * - a `+` is read as a space, as a query's form decoding reads it too, so `?q=a+b` is the page `?q=a%20b`;
 * - `%2F` and `%3F` decode to `/` and `?`, which a query holds as plain characters, so `?next=%2Fhome` is the page
 *   `?next=/home`.
 * Nothing in the path is rewritten: there a `+` is a plus and `%2F` is not a segment's end, so the decoded address
 * is another page. `%26`, `%3D`, `%23` and `%2B` decode to characters that split or end a query, so they have no form.
 */
function rewrittenQuery(query: string): string {
  return query.replace(/\+/g, '%20').replace(/%2F/gi, '/').replace(/%3F/gi, '?');
}

/** The faithful form of a stored exact address, or `null` when no address the editor accepts means that page. */
function faithfulAddress(value: string): string | null {
  const queryAt = value.indexOf('?');
  if (queryAt < 0) return null;
  const candidate = value.slice(0, queryAt + 1) + rewrittenQuery(value.slice(queryAt + 1));
  if (candidate === value) return null;
  const checked = normalizeUrlRules([{ match: 'exact', value: candidate }]);
  return checked.ok ? (checked.value[0]?.value ?? null) : null;
}

/**
 * Whether the exam browser reads a stored rule differently than the editor promises: `null` for a rule the editor
 * accepts today, otherwise the reason (the editor's own refusal of it) and its faithful form where one exists.
 */
export function storedRuleReading(rule: Pick<ExbUrlRule, 'match' | 'value'> & Partial<ExbUrlRule>): StoredRuleReading | null {
  const checked = normalizeUrlRules([rule]);
  if (checked.ok) return null;
  const { message, messageKey, values } = checked.error;
  // A refusal of the rules carries its catalogue key; only a shape error zod worded has none.
  const reason: PolicyMessage = messageKey === undefined ? policyMessage('invalidValue') : { messageKey, ...(values ? { values } : {}), message };
  return { match: rule.match, value: rule.value, reason, faithful: rule.match === 'exact' ? faithfulAddress(rule.value) : null };
}

/** The readings of the stored rules among `rules` that the exam browser reads differently, in their order. */
export function storedRuleReadings(rules: readonly ExbUrlRule[]): StoredRuleReading[] {
  return rules.map(storedRuleReading).filter((reading): reading is StoredRuleReading => reading !== null);
}

/**
 * The address a configuration writes for a stored exact rule: the faithful form where one means the same page,
 * otherwise the rule as stored (which is then marked for the teacher).
 */
export function configuredExactAddress(value: string): string {
  const reading = storedRuleReading({ match: 'exact', value });
  return reading?.faithful ?? value;
}
