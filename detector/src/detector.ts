/**
 * Entry of `lms-exb-detector.js`. Runs once per page; never throws into the LMS page.
 */
import { readInjectedConfig } from './config.js';
import { createDetectorContext } from './detector-context.js';
import { runDetector } from './detector-run.js';
import { captureScriptEnvironment } from './environment.js';
import { createLogger } from './log.js';

const STARTED = Symbol.for('exb.detector.started');

(function startDetector() {
  let log = createLogger(false, undefined);
  try {
    const config = readInjectedConfig();
    if (config === null) return;
    const flags = window as unknown as Record<symbol, unknown>;
    if (flags[STARTED] === true) return;
    flags[STARTED] = true;
    const env = captureScriptEnvironment(window);
    if (env === null) return;
    const ctx = createDetectorContext(env, config);
    log = ctx.log;
    runDetector(ctx).then(
      (run) => log(`detector: ${run.outcome}`),
      (error: unknown) => log('detector failed', error),
    );
  } catch (error) {
    log('detector failed', error);
  }
})();
