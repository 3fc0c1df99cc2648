import { htmlResponse, redirectResponse } from '../errors.js';
import { escapeHtml, scriptJson } from '../pages/html.js';
import { publicRoute, type RouteDef } from '../router.js';
import { EXAM_BROWSER_PATH, type ExamBrowserSession } from './host.js';

const STYLE = `
  html, body { height: 100%; margin: 0; }
  body { display: flex; flex-direction: column; font: 15px/1.4 system-ui, sans-serif; color: #2d3b45; background: #fff; }
  header { background: #1d2a33; color: #fff; padding: 8px 16px; }
  header a { color: #b3dcff; }
  .bar { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 16px; }
  .badge { margin: 0; padding: 2px 8px; border-radius: 4px; background: #ffd23f; color: #1d2a33; font-weight: 700; font-size: 13px; }
  h1 { margin: 0; font-size: 18px; }
  .leave { margin: 0 0 0 auto; }
  .note, .address { margin: 4px 0 0; font-size: 14px; }
  .address output { font-family: ui-monospace, monospace; font-size: 13px; overflow-wrap: anywhere; }
  details { margin-top: 4px; font-size: 13px; }
  summary { cursor: pointer; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 4px 0; }
  dt { font-weight: 700; } dd { margin: 0; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
  main { flex: 1; display: flex; min-height: 0; }
  iframe { flex: 1; border: 0; border-top: 4px solid #ffd23f; width: 100%; }
  main.quit { display: block; flex: none; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
  main.quit h2 { font-size: 20px; margin: 0 0 8px; }
  main.quit .badge { display: inline-block; }
  main.problem { display: block; flex: none; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
  main.problem .badge { display: inline-block; }
  .problem a { color: #0374b5; }
`;

function document(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>`;
}

function problemPage(status: number, title: string, message: string): Response {
  return htmlResponse(
    document(
      `${title}: simulated exam browser (testbed)`,
      `<main class="problem" id="exb-sim-problem">
<p class="badge">Testbed stand-in</p>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p><a href="/">Back to the development LMS</a></p>
</main>`,
    ),
    status,
  );
}

/**
 * Updates the address line on every page the frame loads; another site's address cannot be read from here. And quits
 * at the configuration's quit URL, as the exam browser does: Safe Exam Browser for Windows matches every navigation
 * against `Regex.Escape(quitURL.TrimEnd('/')) + "\/?"`, case-insensitive, cancels it and quits, after asking when
 * `quitURLConfirm` is set (`SafeExamBrowser.Browser/Handlers/RequestHandler.cs`, `OnBeforeBrowse` and `IsQuitUrl`). The
 * quit URL is a page of the exam service, whose address this window cannot read, so that page tells the window where
 * it is (with the testbed on, `server/src/pages/testbed-quit-notice.ts`); a navigation the real browser would have
 * cancelled has loaded by then, and the window shows what the real browser does instead: it quits, and closes.
 */
const WINDOW_SCRIPT = `
(function () {
  var frame = document.getElementById('exb-sim-page');
  var address = document.getElementById('exb-sim-address');
  var settings = JSON.parse(document.getElementById('exb-sim-settings').textContent);
  frame.addEventListener('load', function () {
    var href = null;
    try { href = frame.contentWindow.location.href; } catch (error) { href = null; }
    address.textContent = href === null ? 'a page of another site (the exam service)' : href;
  });
  // The pattern is the quit URL without its trailing slashes, escaped, then an optional slash, matched anywhere in
  // the address and in any case: the same as finding the trimmed quit URL in it, in any case.
  function isQuitUrl(url) {
    return typeof url === 'string' && settings.quitUrl !== null && url.toLowerCase().indexOf(settings.quitUrl) !== -1;
  }
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (event.source !== frame.contentWindow || event.origin !== settings.serviceOrigin) return;
    if (!data || data.type !== 'exb-quit-url-reached' || !isQuitUrl(data.url)) return;
    if (settings.confirmQuit && !window.confirm('Quit the exam browser?')) { history.back(); return; }
    var main = document.querySelector('main');
    main.className = 'quit';
    main.innerHTML = document.getElementById('exb-sim-quit').innerHTML;
    document.title = 'Exam browser quit (testbed)';
    address.textContent = data.url;
    main.querySelector('h2').focus();
    // The real browser ends here. A window the tool opened can close itself; any other stays with this notice.
    window.setTimeout(function () { window.close(); }, settings.closeAfterMs);
  });
})();`;

/** How long the notice that the exam browser quits stays before the window closes: long enough to be read. */
const CLOSE_AFTER_MS = 4_000;

function windowPage(session: ExamBrowserSession): string {
  const { opened, browser } = session;
  const details: [string, string][] = [
    ['Start URL', opened.startUrl ?? ''],
    ['Quit URL', opened.quitUrl ?? '(none)'],
    ['Config Key', opened.configKey],
    ['Page API version', browser.version],
    ['File layers', opened.layers.join(' → ')],
    ['Downloaded from', session.downloadUrl.replace(/([?&]grant=)[^&]+/, '$1…')],
  ];
  return document(
    'Simulated exam browser (testbed)',
    `<header>
<div class="bar">
<p class="badge">Testbed stand-in</p>
<h1>Simulated exam browser</h1>
<p class="leave"><a href="/">Leave the simulated exam browser</a></p>
</div>
<p class="note">Not the real exam browser: the development LMS’s stand-in, showing the quiz as the exam browser would.</p>
<p class="address">Page: <output id="exb-sim-address">${escapeHtml(opened.startUrl ?? '')}</output></p>
<details><summary>Configuration</summary>
<p class="note">The development LMS downloaded your one-time configuration, opened it with the development certificate’s
private key, and gives every page below the exam browser’s page API: <code>SafeExamBrowser.security.configKey</code> for
the page’s own address. The real exam browser closes when it reaches the quit URL.</p>
<dl>${details.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>
</details>
</header>
<main>
<iframe id="exb-sim-page" name="${escapeHtml(browser.frameName())}" title="Exam browser page" src="${escapeHtml(opened.startUrl ?? 'about:blank')}"></iframe>
</main>
<template id="exb-sim-quit">
<p class="badge">Testbed stand-in</p>
<h2 tabindex="-1">The exam browser quits here</h2>
<p role="status">The quiz reached the configuration’s quit URL. A real exam browser does not show that page: it stops
the navigation there and quits${opened.settings.get('quitURLConfirm') === true ? ' (after asking, as this configuration says)' : ', without asking'}.
This simulated exam browser closes its window now.</p>
<p>If the window stays open (it was not opened from the exam service), close it yourself, or
<a href="/">go back to the development LMS</a>.</p>
</template>
<script type="application/json" id="exb-sim-settings">${scriptJson({
      quitUrl: opened.quitUrl === undefined ? null : opened.quitUrl.replace(/\/+$/, '').toLowerCase(),
      confirmQuit: opened.settings.get('quitURLConfirm') === true,
      serviceOrigin: new URL(session.downloadUrl).origin,
      closeAfterMs: CLOSE_AFTER_MS,
    })}</script>
<script>${WINDOW_SCRIPT}</script>`,
  );
}

/**
 * The simulated exam browser's two pages: `?launch=<seb(s):// URL>` downloads and opens the configuration (spending
 * its one-time grant, as the real browser does) and sends the window on to the opened session's page, which a reload
 * shows again without downloading twice.
 */
export function examBrowserRoutes(): RouteDef[] {
  const disabled = () =>
    problemPage(404, 'No simulated exam browser here', 'This LMS runs without the testbed’s simulated exam browser. Start it with `npm start` or `npm run dev`.');
  return [
    publicRoute('GET', EXAM_BROWSER_PATH, async ({ lms, url }) => {
      if (!lms.examBrowser.enabled) return disabled();
      const launch = url.searchParams.get('launch');
      if (!launch) {
        return problemPage(
          400,
          'Which configuration?',
          'Open the simulated exam browser from the tool: download a quiz’s configuration, then choose “Open in the testbed’s simulated exam browser”.',
        );
      }
      const outcome = await lms.examBrowser.open(launch);
      if (!outcome.ok) return problemPage(outcome.status, 'The configuration could not be opened', outcome.problem);
      return redirectResponse(`${EXAM_BROWSER_PATH}/${outcome.session.id}`, 303);
    }),
    publicRoute('GET', `${EXAM_BROWSER_PATH}/:session_id`, ({ lms, params }) => {
      if (!lms.examBrowser.enabled) return disabled();
      const session = lms.examBrowser.session(params.session_id ?? '');
      if (!session) {
        return problemPage(404, 'This window has ended', 'The development LMS restarted or forgot this configuration. Download the configuration again from the course.');
      }
      return htmlResponse(windowPage(session), 200, { 'cache-control': 'no-store' });
    }),
  ];
}
