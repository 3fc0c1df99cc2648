import type { Locale } from '@exb/shared/i18n/locale.js';
import type { HandoffPayload } from '../domain/exam-browser/config-grants.js';
import { translator } from '../i18n/translator.js';
import { exbPage } from './exb-page.js';
import { escapeHtml } from './shell.js';

export interface LaunchHandoffPageOptions {
  exbLaunchUrl: string;
  purpose: HandoffPayload['purpose'];
  /** The LMS course the page links back to. */
  returnUrl: string;
  /** The development LMS's simulated exam browser, where the testbed offers it (`config.testbedExamBrowserUrl`). */
  testbedExamBrowserUrl: string | undefined;
  locale: Locale;
}

/**
 * The page that hands the `seb(s)://` launch URL to the operating system, once. On a testbed with the development LMS it also
 * offers the LMS's simulated exam browser for the same one-time download, and then does not start the exam browser by
 * itself: a development machine usually has none, and the browser's prompt for an unknown scheme would cover the page.
 */
export function launchHandoffPage({ exbLaunchUrl, purpose, returnUrl, testbedExamBrowserUrl, locale }: LaunchHandoffPageOptions): string {
  const t = translator(locale);
  const simulated = testbedExamBrowserUrl === undefined ? undefined : `${testbedExamBrowserUrl}?${new URLSearchParams({ launch: exbLaunchUrl })}`;
  return exbPage({
    locale,
    title: t('launch:handoff.title'),
    paragraphs: [t(simulated === undefined ? 'launch:handoff.opens' : 'launch:handoff.startWithButton'), t('launch:handoff.onceOnly')],
    links: [
      { href: exbLaunchUrl, text: t('launch:handoff.open') },
      { href: returnUrl, text: t(purpose === 'student-list' ? 'launch:handoff.backToQuizList' : 'launch:handoff.backToCourse'), top: true },
    ],
    ...(simulated === undefined
      ? { head: `<meta http-equiv="refresh" content="0;url=${escapeHtml(exbLaunchUrl)}">` }
      : {
          aside: {
            heading: t('launch:handoff.testbedHeading'),
            paragraphs: [t('launch:handoff.testbedExplanation')],
            links: [{ href: simulated, text: t('launch:handoff.testbedLink'), newWindow: true, secondary: true }],
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
