/**
 * The theme loader runs on every LMS page and stays silent on all but assessment pages and the classic quiz page: it
 * asks the service whether the assessment requires the exam browser and, only then, adds the detector script once. On
 * the classic quiz page the detector tells an ordinary browser, before "Take the Quiz", that the exam browser is
 * required; inside the exam browser it shows the exit link there after a final submission.
 */
import { matchLmsPage } from '@exb/shared/lms-paths.js';
import type { ScriptEnvironment } from './environment.js';
import { checkRequirement } from './requirement.js';
import { serviceUrls } from './service-urls.js';

export const DETECTOR_SCRIPT_ATTRIBUTE = 'data-exb-detector';

export interface ThemeLoaderContext extends ScriptEnvironment {
  readonly baseUrl: string;
}

export type ThemeLoaderOutcome = 'not-an-lms-page' | 'not-required' | 'already-loaded' | 'loaded';

export async function runThemeLoader(ctx: ThemeLoaderContext): Promise<ThemeLoaderOutcome> {
  const page = matchLmsPage(ctx.location.pathname);
  if (page === null) return 'not-an-lms-page';

  const required = await checkRequirement(ctx.fetch, ctx.timers, ctx.baseUrl, {
    courseId: page.courseId,
    contentId: page.contentId,
  });
  if (!required) return 'not-required';
  if (hasDetectorScript(ctx.document, ctx.baseUrl)) return 'already-loaded';
  appendDetectorScript(ctx.document, ctx.baseUrl);
  return 'loaded';
}

/** True when any script element already points at the detector (either route, any query). */
export function hasDetectorScript(doc: Document, baseUrl: string): boolean {
  const wanted = [serviceUrls.detectorScript(baseUrl), serviceUrls.detectorScriptAlias(baseUrl)];
  for (const script of Array.from(doc.querySelectorAll('script[src]'))) {
    const src = script.getAttribute('src');
    if (src === null) continue;
    let url: URL;
    try {
      url = new URL(src, doc.baseURI);
    } catch {
      continue;
    }
    if (wanted.includes(`${url.origin}${url.pathname}`)) return true;
  }
  return false;
}

export function appendDetectorScript(doc: Document, baseUrl: string): HTMLScriptElement {
  const script = doc.createElement('script');
  script.src = serviceUrls.detectorScript(baseUrl);
  script.async = true;
  script.setAttribute(DETECTOR_SCRIPT_ATTRIBUTE, '');
  (doc.head ?? doc.body ?? doc.documentElement).appendChild(script);
  return script;
}
