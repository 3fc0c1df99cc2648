import { Window } from 'happy-dom';
import type { DetectorConfig } from '@exb/shared/detector-config-rules.js';
import type { DetectorMessages } from '@exb/shared/detector-messages.js';
import { CATALOGUES } from '@exb/shared/i18n/catalogues.js';
import type { FormOperations } from '../src/access-code-prompt.js';
import type { DetectorContext } from '../src/detector-run.js';
import { withoutFragment, type SchedulingTimers, type ScriptEnvironment } from '../src/environment.js';
import { captureExamBrowserApi } from '../src/exam-browser.js';
import { createText, pageLocale } from '../src/messages.js';
import type { FetchFunction } from '../src/http.js';
import { createServiceApi } from '../src/service-api.js';

export const LMS = 'https://canvas.example.edu';
export const SERVICE = 'https://exb.example.edu';
export const KEY_HASH = 'a'.repeat(64);
export const PROOF_TOKEN = `${'P'.repeat(42)}A`;
export const EXIT_GRANT = `${'E'.repeat(42)}A`;

/** The prompts as the server injects them: every language of the `detector` catalogue. */
export const MESSAGES: DetectorMessages = { en: CATALOGUES.en.detector, de: CATALOGUES.de.detector };

export const CONFIG: DetectorConfig = {
  baseUrl: SERVICE,
  ltiClientId: '10000000000001',
  deploymentIds: ['1:abc'],
  debug: false,
  diagnostics: false,
  messages: MESSAGES,
};

/** The English prompts, for rendering a panel on its own. */
export const ENGLISH = createText(MESSAGES, 'en');

export function createWindow(url: string, bodyHtml = '', options: { javascript?: boolean } = {}): Window {
  const win = new Window({
    url,
    settings: {
      enableJavaScriptEvaluation: options.javascript === true,
      suppressInsecureJavaScriptEnvironmentWarning: true,
      disableJavaScriptFileLoading: true,
      navigation: { disableMainFrameNavigation: true, disableChildFrameNavigation: true, disableChildPageNavigation: true },
    },
  });
  win.document.body.innerHTML = bodyHtml;
  return win;
}

export const asDomWindow = (win: Window): globalThis.Window => win as unknown as globalThis.Window;

export interface RecordedRequest {
  readonly url: string;
  readonly method: string;
  readonly credentials: RequestCredentials | undefined;
  readonly cache: RequestCache | undefined;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

export type RouteReply = { status: number; body?: unknown; text?: string } | 'network-error';
export type Route = (request: RecordedRequest) => RouteReply;

/** A fetch that answers from routes keyed by "METHOD URL" and records every request. */
export function fakeFetch(routes: Record<string, Route>): { fetch: FetchFunction; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fetch: FetchFunction = async (input, init = {}) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) headers[name.toLowerCase()] = value;
    const request: RecordedRequest = {
      url: input,
      method: init.method ?? 'GET',
      credentials: init.credentials,
      cache: init.cache,
      headers,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    requests.push(request);
    const route = routes[`${request.method} ${input}`];
    const reply: RouteReply = route === undefined ? { status: 404, body: { success: false } } : route(request);
    if (reply === 'network-error') throw new TypeError('network error');
    return new Response(reply.text ?? JSON.stringify(reply.body ?? null), { status: reply.status });
  };
  return { fetch, requests };
}

/** Timers that never fire on their own; tests fire intervals and timeouts explicitly. */
export function manualTimers(): SchedulingTimers & { fireIntervals(): void; fireTimeouts(): void; readonly active: number } {
  let next = 1;
  const timeouts = new Map<number, () => void>();
  const intervals = new Map<number, () => void>();
  return {
    setTimeout(handler) {
      const id = next++;
      timeouts.set(id, handler);
      return id;
    },
    clearTimeout(handle) {
      timeouts.delete(handle as number);
    },
    setInterval(handler) {
      const id = next++;
      intervals.set(id, handler);
      return id;
    },
    clearInterval(handle) {
      intervals.delete(handle as number);
    },
    fireIntervals() {
      for (const handler of [...intervals.values()]) handler();
    },
    fireTimeouts() {
      const pending = [...timeouts.values()];
      timeouts.clear();
      for (const handler of pending) handler();
    },
    get active() {
      return intervals.size;
    },
  };
}

export function recordingForms(): FormOperations & { filled: string[]; submitted: number } {
  const record = {
    filled: [] as string[],
    submitted: 0,
    setValue(input: HTMLInputElement, value: string) {
      input.value = value;
      record.filled.push(value);
    },
    submit() {
      record.submitted += 1;
    },
  };
  return record;
}

export interface ExamBrowserStub {
  configKey: unknown;
  updateKeys?: (callback: () => void) => void;
}

export interface DetectorSetup {
  url: string;
  html?: string;
  /** The page's `<html lang>`. */
  lang?: string;
  examBrowser?: ExamBrowserStub;
  routes?: Record<string, Route>;
  config?: Partial<DetectorConfig>;
}

export function detectorSetup(setup: DetectorSetup) {
  const win = createWindow(setup.url, setup.html ?? '');
  if (setup.lang !== undefined) win.document.documentElement.setAttribute('lang', setup.lang);
  if (setup.examBrowser !== undefined) {
    (win as unknown as { SafeExamBrowser: unknown }).SafeExamBrowser = { version: 'test', security: setup.examBrowser };
  }
  const dom = asDomWindow(win);
  const { fetch, requests } = fakeFetch(setup.routes ?? {});
  const timers = manualTimers();
  const forms = recordingForms();
  const config = { ...CONFIG, ...setup.config };
  const env: ScriptEnvironment = {
    window: dom,
    document: dom.document,
    fetch,
    location: { href: withoutFragment(win.location.href), origin: win.location.origin, pathname: win.location.pathname },
    timers,
    now: () => 1_000_000,
    console: undefined,
  };
  const ctx: DetectorContext = {
    ...env,
    config,
    examBrowser: captureExamBrowserApi(dom),
    storage: dom.sessionStorage,
    forms,
    api: createServiceApi(config.baseUrl, fetch, timers),
    log: () => undefined,
    text: createText(config.messages, pageLocale(dom)),
  };
  return { win, ctx, requests, timers, forms };
}

/** Lets pending promise callbacks run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Waits on the clock, not on a count of turns: a busy machine can need many more turns for the page's timers. */
export async function settleUntil(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise<void>((resolve) => setTimeout(resolve, 5));
}

export const ACCESS_CODE_PAGE = (action = '/courses/1234/quizzes/512/take?user_id=55') => `
  <div style="width: 600px; margin: 10px auto;">
    <h2>Midterm</h2>
    <p>This quiz is restricted by an access code.</p>
    <form class="access_code_form" action="${action}" method="post">
      <input type="hidden" name="utf8" value="&#x2713;">
      <input type="hidden" name="authenticity_token" value="csrf">
      <label for="quiz_access_code">Access Code:</label>
      <input type="password" name="access_code" id="quiz_access_code" title="Access Code:">
      <button class="btn" type="submit">Submit</button>
    </form>
  </div>`;

export const CLASSIC_RESULT_PAGE = `
  <div id="quiz_show">
    <header class="quiz-header"><h1 id="quiz_title">Midterm</h1></header>
    <div id="direct-share-mount-point"></div>
    <div class="quiz-submission">
      <div class="quiz_score">Score for this quiz: <span class="score_value">8</span> out of 10</div>
      <div>Submitted Mar 1 at 10:00am</div>
      <div id="questions" class="assessment_results"></div>
    </div>
    <div id="module_sequence_footer"></div>
  </div>`;
