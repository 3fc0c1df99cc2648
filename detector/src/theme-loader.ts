/**
 * Entry of `lms-exb-theme-loader.js`, the script the LMS theme includes on every page. Never throws into the page.
 */
import { readInjectedConfig } from './config.js';
import { captureScriptEnvironment } from './environment.js';
import { createLogger } from './log.js';
import { runThemeLoader } from './theme-loader-run.js';

(function startThemeLoader() {
  let log = createLogger(false, undefined);
  try {
    const config = readInjectedConfig();
    if (config === null) return;
    const env = captureScriptEnvironment(window);
    if (env === null) return;
    log = createLogger(config.debug, env.console);
    runThemeLoader({ ...env, baseUrl: config.baseUrl }).then(
      (outcome) => log(`theme loader: ${outcome}`),
      (error: unknown) => log('theme loader failed', error),
    );
  } catch (error) {
    log('theme loader failed', error);
  }
})();
