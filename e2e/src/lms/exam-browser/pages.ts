import { htmlResponse, redirectResponse } from '../errors.js';
import { escapeHtml } from '../pages/html.js';
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

/** Updates the address line on every page the frame loads; another site's address cannot be read from here. */
const ADDRESS_SCRIPT = `
(function () {
  var frame = document.getElementById('exb-sim-page');
  var address = document.getElementById('exb-sim-address');
  frame.addEventListener('load', function () {
    var href = null;
    try { href = frame.contentWindow.location.href; } catch (error) { href = null; }
    address.textContent = href === null ? 'a page of another site (the exam service)' : href;
  });
})();`;

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
<script>${ADDRESS_SCRIPT}</script>`,
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
