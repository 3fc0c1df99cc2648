import type { DetectorConfig } from '@exb/shared/detector-config-rules.js';
import { captureFormOperations } from './access-code-prompt.js';
import type { DetectorContext } from './detector-run.js';
import type { ScriptEnvironment } from './environment.js';
import { captureExamBrowserApi } from './exam-browser.js';
import { createLogger } from './log.js';
import { createText, pageLocale } from './messages.js';
import { createServiceApi } from './service-api.js';

function sessionStorageOf(win: Window): Storage | null {
  try {
    return win.sessionStorage ?? null;
  } catch {
    // Access throws where storage is disabled.
    return null;
  }
}

/** Everything the detector needs, captured from the page in one go before anything is awaited. */
export function createDetectorContext(env: ScriptEnvironment, config: DetectorConfig): DetectorContext {
  return {
    ...env,
    config,
    examBrowser: captureExamBrowserApi(env.window),
    storage: sessionStorageOf(env.window),
    forms: captureFormOperations(env.window),
    api: createServiceApi(config.baseUrl, env.fetch, env.timers),
    log: createLogger(config.debug, env.console),
    text: createText(config.messages, pageLocale(env.window)),
  };
}
