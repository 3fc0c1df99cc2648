/**
 * URL and tool policy of exam-browser configurations: the stored shapes (`ExbUrlRule`, `ExternalToolConfig`) and the
 * one set of rules that instructor routes, administrator presets and the server apply to them.
 *
 * Every policy ends up as allow rules in the exam browser's URL filter, where a rule that is broader than intended
 * opens the exam to the web. So values are accepted only in a form that has exactly one meaning there: exact HTTPS URLs
 * and concrete host names, never patterns. Validators return the normalized value or an error carrying the contract's
 * `error_code`, so two spellings of one policy are stored (and fingerprinted) identically.
 *
 * Depends on zod only, so the client can validate with the same rules before it submits. Imported as
 * `@exb/shared/exb-policy.js`; the modules beside this one are its parts, not entry points of their own.
 */
export { checkNoQuizToolDefinitions, normalizeQuizOnlyTools, normalizeToolSelection } from './assessment-tools.js';
export {
  EXB_POLICY_ERROR_CODES,
  type ExbPolicyError,
  type ExbPolicyErrorCode,
  type PolicyPath,
  type PolicyResult,
  type ValueCheck,
} from './errors.js';
export {
  exactRuleMismatch,
  exactUrlExpression,
  MISMATCH_MESSAGES,
  type ExactRuleMismatch,
  type ExactUrlExpression,
  type PolicyCheck,
} from './exact-rule-filter.js';
export { isFilterExpressible, normalizeExactHttpsUrl } from './exact-urls.js';
export { isPublicSuffix, normalizeHostname } from './hostnames.js';
export { mergeInstructorToolCatalog } from './instructor-tool-catalog.js';
export { EXB_POLICY_LIMITS } from './limits.js';
export {
  englishPolicyText,
  isPolicyMessageKey,
  policyMessage,
  refOf,
  renderPolicyMessage,
  schemaPolicyMessage,
  type PolicyMessage,
  type PolicyMessageKey,
  type PolicyMessageRef,
  type PolicyMessageValue,
} from './messages.js';
export { exbPasswordSchema, ownPasswordProblem, ownPasswordRefusal } from './passwords.js';
export {
  exbUrlRuleSchema,
  externalToolConfigSchema,
  externalToolInputSchema,
  type ExbUrlRule,
  type ExbUrlRuleInput,
  type ExternalToolConfig,
  type ExternalToolConfigInput,
} from './schemas.js';
export { configuredExactAddress, storedRuleReading, storedRuleReadings, type StoredRuleReading } from './stored-rules.js';
export { setupCompletionProblem, setupCompletionRefusal, type SetupCompletion } from './setup.js';
export { isVideoId, normalizeToolUrl, parseVideoId, VIDEO_TOOL_PATH_PREFIX, videoToolUrl } from './tool-urls.js';
export {
  isEquivalentTool,
  normalizeExternalTool,
  normalizeToolCatalog,
  type ToolNormalizationOptions,
} from './tools.js';
export { normalizeUrlRules, urlRuleKey } from './url-rules.js';
export { siteOfAddress, wholeSiteConfirmation, wholeSiteConfirmationMessage } from './whole-site.js';
export { policyErrorFromZod, policySchema } from './zod-adapters.js';
