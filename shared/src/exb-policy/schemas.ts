/**
 * The stored shapes of URL rules and tools. They check types and bounds only; what a value may be is decided by the
 * validators (`normalizeUrlRules`, `normalizeExternalTool`), which return these shapes normalized.
 */
import { z } from 'zod';
import { EXB_POLICY_LIMITS } from './limits.js';
import { schemaMessage } from './messages.js';

export const ID_PATTERN = /^[A-Za-z0-9_-]+$/;

export const idSchema = z.string().min(1).max(EXB_POLICY_LIMITS.idLength).regex(ID_PATTERN, schemaMessage('idCharacters').message);

/**
 * One allow entry of a URL policy, stored as normalized by {@link normalizeUrlRules}.
 *
 * - `id`: optional client-chosen identifier (1 to 64 of `A-Z a-z 0-9 _ -`), kept so a client can track rows; no meaning
 *   to the exam browser.
 * - `match`: `exact` allows exactly the URL in `value` (path and query as given; the exam browser also accepts a
 *   trailing slash, and a URL without query any query); `domain` allows the host in `value` and every subdomain of it.
 * - `value`: for `exact`, an absolute HTTPS URL (at most 2048 characters), stored in canonical form: lower-case
 *   punycode host, default port dropped, fragment dropped. For `domain`, a concrete host name such as `example.edu`,
 *   stored as lower-case punycode (`bücher.de` becomes `xn--bcher-kva.de`).
 * - `broadDomainConfirmed`: must be `true` on a `domain` rule: the person saving it confirmed that every subdomain is
 *   meant. Absent on `exact` rules once normalized.
 * - `label`: optional display text (at most 120 characters); never part of the configuration.
 */
export const exbUrlRuleSchema = z.object({
  id: idSchema.optional(),
  match: z.enum(['exact', 'domain']),
  value: z.string().min(1).max(EXB_POLICY_LIMITS.urlLength),
  broadDomainConfirmed: z.boolean().optional(),
  label: z.string().max(EXB_POLICY_LIMITS.ruleLabelLength).optional(),
});

export type ExbUrlRule = z.output<typeof exbUrlRuleSchema>;
export type ExbUrlRuleInput = z.input<typeof exbUrlRuleSchema>;

/** An empty name or launch address is the one shape error a form meets: said as what to do, not as a type error. */
export const TOOL_LABEL_MISSING = schemaMessage('tool.labelMissing');
export const TOOL_URL_MISSING = schemaMessage('tool.urlMissing');

const toolFields = {
  label: z.string().min(1, TOOL_LABEL_MISSING.message).max(EXB_POLICY_LIMITS.toolLabelLength),
  url: z.string().min(1, TOOL_URL_MISSING.message).max(EXB_POLICY_LIMITS.urlLength),
  resourceRules: z.array(exbUrlRuleSchema).max(EXB_POLICY_LIMITS.resourceRules).default([]),
  managedByAdmin: z.boolean().default(false),
  presetId: z.uuid().optional(),
  enabled: z.boolean().default(true),
};

/**
 * An approved tool students may open during the exam, stored as normalized by {@link normalizeExternalTool}.
 *
 * - `id`: stable identifier (1 to 64 of `A-Z a-z 0-9 _ -`, a UUID fits), unique within a course catalog; assessments
 *   select course tools by it (`externalToolIds`) and students see it in the approved tool list.
 * - `label`: the name shown to students, 1 to 80 characters after trimming, no control or bidirectional-override
 *   characters.
 * - `url`: the exact HTTPS launch URL, canonical as for `exact` rules. Video links (watch, share, Shorts, embed) are
 *   stored as the service's own player route `{base_url}/exb/tool/video/<id>`.
 * - `resourceRules`: further URLs or domains the tool needs (at most 25), with the same rules as a URL policy.
 * - `managedByAdmin`: `true` for a school-managed tool rolled out from an administrator preset; instructors may switch
 *   it on or off but not change it. Defaults to `false`.
 * - `presetId`: UUID of the administrator preset a school-managed tool came from.
 * - `enabled`: `false` keeps the definition but leaves the tool out of configurations. Defaults to `true`.
 */
export const externalToolConfigSchema = z.object({ id: idSchema, ...toolFields });

/** A tool as submitted: the id may be missing on a new tool, and the server assigns one. */
export const externalToolInputSchema = z.object({ id: idSchema.optional(), ...toolFields });

export type ExternalToolConfig = z.output<typeof externalToolConfigSchema>;
export type ExternalToolConfigInput = z.input<typeof externalToolInputSchema>;
