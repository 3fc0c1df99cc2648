import type { HandoffPayload } from '../domain/exam-browser/config-grants.js';
import { exbPage } from './exb-student-http.js';
import { escapeHtml } from '../pages/shell.js';

export interface LaunchHandoffPageOptions {
  exbLaunchUrl: string;
  purpose: HandoffPayload['purpose'];
  /** The LMS course the page links back to. */
  returnUrl: string;
  /** The development LMS's simulated exam browser, where the testbed offers it (`config.testbedExamBrowserUrl`). */
  testbedExamBrowserUrl: string | undefined;
}

/**
 * The page that hands the `exb(s)://` URL to the operating system, once. On a testbed with the development LMS it also
 * offers the LMS's simulated exam browser for the same one-time download, and then does not start the exam browser by
 * itself: a development machine usually has none, and the browser's prompt for an unknown scheme would cover the page.
 */
export function launchHandoffPage({ exbLaunchUrl, purpose, returnUrl, testbedExamBrowserUrl }: LaunchHandoffPageOptions): string {
  const simulated = testbedExamBrowserUrl === undefined ? undefined : `${testbedExamBrowserUrl}?${new URLSearchParams({ launch: exbLaunchUrl })}`;
  return exbPage({
    title: 'Starting the exam browser',
    paragraphs: [
      simulated === undefined
        ? 'The exam browser opens with this quiz. If nothing happens, start it with the button below.'
        : 'Start the exam browser with the button below; it opens with this quiz.',
      'The configuration can be used once and only for the next two minutes.',
    ],
    links: [
      { href: exbLaunchUrl, text: 'Open the exam browser' },
      { href: returnUrl, text: purpose === 'student-list' ? 'Back to the quiz list' : 'Back to the course', top: true },
    ],
    ...(simulated === undefined
      ? { head: `<meta http-equiv="refresh" content="0;url=${escapeHtml(exbLaunchUrl)}">` }
      : {
          aside: {
            heading: 'Testbed: no exam browser on this computer?',
            paragraphs: [
              'This development setup comes with a stand-in for the exam browser. It opens the same one-time configuration in a new window and shows the quiz as the exam browser would.',
            ],
            links: [{ href: simulated, text: 'Open in the testbed’s simulated exam browser', newWindow: true, secondary: true }],
          },
        }),
    bootstrap: {
      view: 'exb-launch-handoff',
      available: true,
      exbLaunchUrl,
      lmsReturnUrl: returnUrl,
      purpose,
      ...(simulated === undefined ? {} : { testbedExamBrowserUrl: simulated }),
    },
  });
}
