/**
 * The detector's rules, in order: prove the exam browser's configuration key for this page, redeem the proof for the
 * access code (once more with a fresh proof if that fails, then telling the student to reload), fill the LMS prompt
 * when it is unambiguous (on a new quiz, whose prompt is in another origin's frame, show the code for the student to
 * type instead), show approved tools, and show the exit link once the LMS records completion. Without the exam browser's page API it only tells the student that the exam browser is required,
 * and only after the service confirms it.
 */
import type { DetectorConfig } from '@exb/shared/detector-config-rules.js';
import { classicQuizPath, matchLmsPage, newQuizAssignmentPath, type LmsPage } from '@exb/shared/lms-paths.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { fillAndSubmit, findAccessCodePrompt, type FormOperations } from './access-code-prompt.js';
import { mayAutoSubmit, recordAutoSubmit } from './auto-submit-guard.js';
import { hasClassicQuizResult, isNewQuizSubmitted } from './completion.js';
import { domReady, type SchedulingTimers, type ScriptEnvironment } from './environment.js';
import { readConfigKeyHash, type ExamBrowserApi } from './exam-browser.js';
import { loadExitGrant, saveExitGrant } from './exit-grant-store.js';
import type { Logger } from './log.js';
import type { Text } from './messages.js';
import { EMPTY_PANEL, createPanelHost, type PanelHost } from './panel.js';
import type { ProofOutcome, Redemption } from './responses.js';
import type { ServiceApi } from './service-api.js';
import { serviceUrls, type AssessmentTarget } from './service-urls.js';

export const TOOLS_REFRESH_MS = 60_000;
export const COMPLETION_POLL_MS = 30_000;
/** Before the one retry of a failed redemption: long enough for a service that answered 503 to be back. */
export const REDEMPTION_RETRY_DELAY_MS = 2_000;

export interface DetectorContext extends ScriptEnvironment {
  readonly config: DetectorConfig;
  readonly examBrowser: ExamBrowserApi | null;
  readonly storage: Storage | null;
  readonly forms: FormOperations | null;
  readonly api: ServiceApi;
  readonly log: Logger;
  /** The prompts in the LMS page's language. */
  readonly text: Text;
}

export type DetectorOutcome =
  | 'not-an-lms-page'
  | 'not-required'
  | 'exam-browser-required'
  | 'no-config-key'
  | 'proof-rejected'
  | 'redemption-failed'
  | 'access-code-submitted'
  | 'access-code-not-accepted'
  | 'result-page'
  | 'active';

export interface DetectorRun {
  readonly outcome: DetectorOutcome;
  /** Stops the periodic refreshes. */
  stop(): void;
}

const idle = (outcome: DetectorOutcome): DetectorRun => ({ outcome, stop: () => undefined });

export async function runDetector(ctx: DetectorContext): Promise<DetectorRun> {
  const page = matchLmsPage(ctx.location.pathname);
  if (page === null) return idle('not-an-lms-page');
  const target: AssessmentTarget = { courseId: page.courseId, contentId: page.contentId };
  const trace = (step: string, outcome: string) => {
    if (!ctx.config.debug && !ctx.config.diagnostics) return;
    void ctx.api.trace({ source: 'detector', step, outcome, page: page.kind }).catch(() => undefined);
  };

  if (ctx.examBrowser === null) return remindOrdinaryBrowser(ctx, page, target, trace);
  if (page.kind === 'classic-result') return showResultPageExit(ctx, target);

  const configKeyHash = await readConfigKeyHash(ctx.examBrowser, ctx.window, ctx.timers);
  if (configKeyHash === null) {
    ctx.log('the exam browser reported no config key hash');
    trace('config-key', 'missing');
    return idle('no-config-key');
  }

  const proof = await prove(ctx, target, configKeyHash, trace);
  if (!proof.ok) return idle('proof-rejected');

  const redemption = await redeem(ctx, target, configKeyHash, proof.proofToken, trace);
  if (redemption === 'configuration-rejected') return idle('proof-rejected');
  if (redemption === null) {
    await domReady(ctx.document);
    createPanelHost(ctx.document, ctx.text).show({ ...EMPTY_PANEL, notice: { kind: 'redemption-failed' } });
    return idle('redemption-failed');
  }
  if (redemption.exitGrant !== null) {
    saveExitGrant(ctx.storage, target, redemption.exitGrant, redemption.exitGrantExpiresInSeconds, ctx.now());
  }

  await domReady(ctx.document);
  if (page.kind === 'classic-take' && redemption.accessCode !== null && ctx.forms !== null) {
    const prompt = findAccessCodePrompt(ctx.document, {
      href: ctx.location.href,
      origin: ctx.location.origin,
      courseId: page.courseId,
      quizId: page.quizId,
    });
    if (prompt !== null) {
      if (!mayAutoSubmit(ctx.storage, target, ctx.now())) {
        trace('prompt', 'repeated');
        createPanelHost(ctx.document, ctx.text).show({ ...EMPTY_PANEL, notice: { kind: 'access-code-not-accepted' } });
        return idle('access-code-not-accepted');
      }
      trace('prompt', 'filled');
      recordAutoSubmit(ctx.storage, target, ctx.now());
      fillAndSubmit(prompt, redemption.accessCode, ctx.forms);
      return idle('access-code-submitted');
    }
  }

  // A new quiz's prompt is in the engine's cross-origin frame, out of any script's reach: the student types the code,
  // shown right above that frame.
  const accessCode = page.kind === 'newquiz-assignment' ? redemption.accessCode : null;
  const panel = createPanelHost(ctx.document, ctx.text, accessCode === null ? null : toolFrameOf(ctx.document));
  if (accessCode !== null) trace('code-display', 'shown');
  panel.show({ ...EMPTY_PANEL, tools: redemption.tools, accessCode });
  return { outcome: 'active', stop: keepPanelCurrent(ctx, page, target, redemption, panel, trace) };
}

/** The LMS's one tool frame (`iframe#tool_content`) on a new quiz page; `null` when there is not exactly one. */
function toolFrameOf(doc: Document): Element | null {
  const frames = doc.querySelectorAll('iframe#tool_content');
  return frames.length === 1 ? (frames[0] ?? null) : null;
}

/** Proves the configuration key for this page; tells the student when the service refused the configuration. */
async function prove(
  ctx: DetectorContext,
  target: AssessmentTarget,
  configKeyHash: string,
  trace: (step: string, outcome: string) => void,
): Promise<ProofOutcome> {
  const proof = await ctx.api.proveAccess(target, { configKeyHash, url: ctx.location.href });
  trace('access-proof', proof.ok ? 'ok' : String(proof.status));
  if (proof.ok) return proof;
  ctx.log('access proof rejected', { status: proof.status, errorCode: proof.errorCode });
  if (isConfigurationRejected(proof)) {
    await domReady(ctx.document);
    createPanelHost(ctx.document, ctx.text).show({ ...EMPTY_PANEL, notice: { kind: 'configuration-rejected' } });
  }
  return proof;
}

function isConfigurationRejected(proof: ProofOutcome): boolean {
  return !proof.ok && proof.status === 403 && proof.errorCode === ErrorCodes.INVALID_EXB_CONFIG_PROOF;
}

/**
 * Redeems the proof for the access code. A failed redemption is tried once more, after a pause, with a fresh proof: the
 * first one may be spent, or was never spent because the service failed. `null` when both attempts failed.
 */
async function redeem(
  ctx: DetectorContext,
  target: AssessmentTarget,
  configKeyHash: string,
  proofToken: string,
  trace: (step: string, outcome: string) => void,
): Promise<Redemption | 'configuration-rejected' | null> {
  const first = await ctx.api.redeemAccessCode(target, proofToken);
  trace('access-code', first === null ? 'failed' : 'ok');
  if (first !== null) return first;
  ctx.log('access-code redemption failed; proving again');
  await pause(ctx.timers, REDEMPTION_RETRY_DELAY_MS);
  const retry = await prove(ctx, target, configKeyHash, trace);
  if (!retry.ok) return isConfigurationRejected(retry) ? 'configuration-rejected' : null;
  const second = await ctx.api.redeemAccessCode(target, retry.proofToken);
  trace('access-code-retry', second === null ? 'failed' : 'ok');
  return second;
}

function pause(timers: SchedulingTimers, ms: number): Promise<void> {
  return new Promise((resolve) => timers.setTimeout(resolve, ms));
}

async function remindOrdinaryBrowser(
  ctx: DetectorContext,
  page: LmsPage,
  target: AssessmentTarget,
  trace: (step: string, outcome: string) => void,
): Promise<DetectorRun> {
  // The classic quiz page (its landing page before "Take the Quiz") says so as well as the take page does.
  const required = await ctx.api.isRequired(target);
  trace('requirement', String(required));
  if (!required) return idle('not-required');
  await domReady(ctx.document);
  // The download happens in this browser: the required-browser view of the assessment, which returns here afterwards.
  const [view, lmsPath] =
    page.kind === 'newquiz-assignment'
      ? [serviceUrls.requiredNewQuizView(ctx.config.baseUrl, target), newQuizAssignmentPath(page.courseId, page.assignmentId)]
      : [serviceUrls.requiredBrowserView(ctx.config.baseUrl, target), classicQuizPath(page.courseId, page.quizId)];
  const setupUrl = `${view}?lms_url=${encodeURIComponent(`${ctx.location.origin}${lmsPath}`)}`;
  createPanelHost(ctx.document, ctx.text).show({ ...EMPTY_PANEL, notice: { kind: 'exam-browser-required', setupUrl } });
  return idle('exam-browser-required');
}

async function showResultPageExit(ctx: DetectorContext, target: AssessmentTarget): Promise<DetectorRun> {
  await domReady(ctx.document);
  if (!hasClassicQuizResult(ctx.document)) return idle('result-page');
  const grant = loadExitGrant(ctx.storage, target, ctx.now());
  if (grant !== null) {
    createPanelHost(ctx.document, ctx.text).show({ ...EMPTY_PANEL, quitUrl: serviceUrls.exitSession(ctx.config.baseUrl, target, grant) });
  }
  return idle('result-page');
}

/** Starts the tools refresh and the completion watch; returns the function that stops both. */
function keepPanelCurrent(
  ctx: DetectorContext,
  page: LmsPage,
  target: AssessmentTarget,
  redemption: Redemption,
  panel: PanelHost,
  trace: (step: string, outcome: string) => void,
): () => void {
  const quitUrl = redemption.exitGrant === null ? null : serviceUrls.exitSession(ctx.config.baseUrl, target, redemption.exitGrant);
  let completionTimer: unknown = null;
  let stopped = false;

  const showQuit = () => {
    if (quitUrl === null || panel.state.quitUrl !== null) return;
    trace('completion', 'seen');
    // Once submitted, the code has served its purpose and leaves the screen.
    panel.show({ ...panel.state, quitUrl, accessCode: null });
  };

  const refreshTools = async () => {
    const tools = await ctx.api.fetchTools(target);
    if (tools !== null && !stopped) panel.show({ ...panel.state, tools });
  };
  const toolsTimer = ctx.timers.setInterval(() => {
    refreshTools().catch((error: unknown) => ctx.log('tools refresh failed', error));
  }, TOOLS_REFRESH_MS);

  if (quitUrl !== null && page.kind === 'classic-take' && hasClassicQuizResult(ctx.document)) showQuit();

  if (quitUrl !== null && page.kind === 'newquiz-assignment') {
    const check = async () => {
      const submitted = await isNewQuizSubmitted(ctx.fetch, ctx.timers, ctx.location.origin, page.courseId, page.assignmentId);
      if (!submitted || stopped) return;
      showQuit();
      if (completionTimer !== null) ctx.timers.clearInterval(completionTimer);
      completionTimer = null;
    };
    completionTimer = ctx.timers.setInterval(() => {
      check().catch((error: unknown) => ctx.log('completion check failed', error));
    }, COMPLETION_POLL_MS);
    check().catch((error: unknown) => ctx.log('completion check failed', error));
  }

  return () => {
    stopped = true;
    ctx.timers.clearInterval(toolsTimer);
    if (completionTimer !== null) ctx.timers.clearInterval(completionTimer);
  };
}
