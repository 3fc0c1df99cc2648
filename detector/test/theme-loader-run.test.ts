import { describe, expect, it } from 'vitest';
import { withoutFragment } from '../src/environment.js';
import { DETECTOR_SCRIPT_ATTRIBUTE, hasDetectorScript, runThemeLoader } from '../src/theme-loader-run.js';
import { KEY_HASH, LMS, SERVICE, asDomWindow, createWindow, fakeFetch, manualTimers, type Route } from './support.js';

function loaderSetup(url: string, routes: Record<string, Route>, options: { html?: string; examBrowser?: boolean } = {}) {
  const win = createWindow(url, options.html ?? '');
  if (options.examBrowser === true) {
    (win as unknown as { SafeExamBrowser: unknown }).SafeExamBrowser = { security: { configKey: KEY_HASH } };
  }
  const dom = asDomWindow(win);
  const { fetch, requests } = fakeFetch(routes);
  const ctx = {
    window: dom,
    document: dom.document,
    fetch,
    location: { href: withoutFragment(win.location.href), origin: win.location.origin, pathname: win.location.pathname },
    timers: manualTimers(),
    now: () => 0,
    console: undefined,
    baseUrl: SERVICE,
  };
  return { ctx, requests, doc: dom.document };
}

const required = (value: unknown): Route => () => ({ status: 200, body: value });
const detectorScripts = (doc: Document) => doc.querySelectorAll(`script[src="${SERVICE}/js/lms-exb-detector.js"]`);

describe('theme loader', () => {
  it('loads the detector once on a classic take page that requires the exam browser', async () => {
    const { ctx, requests, doc } = loaderSetup(`${LMS}/courses/1/quizzes/2/take?user_id=3`, {
      [`GET ${SERVICE}/api/exb/requirement/1/classicquiz_2`]: required({ success: true, exbRequired: true }),
    });
    expect(await runThemeLoader(ctx)).toBe('loaded');
    expect(requests).toEqual([
      expect.objectContaining({ method: 'GET', url: `${SERVICE}/api/exb/requirement/1/classicquiz_2`, credentials: 'omit', cache: 'no-store' }),
    ]);
    const scripts = detectorScripts(doc);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]?.hasAttribute(DETECTOR_SCRIPT_ATTRIBUTE)).toBe(true);
    expect(await runThemeLoader(ctx)).toBe('already-loaded');
    expect(detectorScripts(doc)).toHaveLength(1);
  });

  it('loads the detector on a new quiz assignment page', async () => {
    const { ctx, doc } = loaderSetup(`${LMS}/courses/1/assignments/9`, {
      [`GET ${SERVICE}/api/exb/requirement/1/newquiz:1:9`]: required({ success: true, exbRequired: true }),
    });
    expect(await runThemeLoader(ctx)).toBe('loaded');
    expect(detectorScripts(doc)).toHaveLength(1);
  });

  it('continues only on exactly success true and exbRequired true', async () => {
    for (const body of [
      { success: true, exbRequired: false },
      { success: false, exbRequired: true },
      { success: true, exbRequired: 'true' },
      { success: 'true', exbRequired: true },
      {},
      null,
    ]) {
      const { ctx, doc } = loaderSetup(`${LMS}/courses/1/quizzes/2/take`, {
        [`GET ${SERVICE}/api/exb/requirement/1/classicquiz_2`]: required(body),
      });
      expect(await runThemeLoader(ctx), JSON.stringify(body)).toBe('not-required');
      expect(detectorScripts(doc)).toHaveLength(0);
    }
  });

  it('treats errors as not required', async () => {
    for (const route of [() => 'network-error' as const, () => ({ status: 503, body: { success: true, exbRequired: true } })]) {
      const { ctx, doc } = loaderSetup(`${LMS}/courses/1/quizzes/2/take`, { [`GET ${SERVICE}/api/exb/requirement/1/classicquiz_2`]: route });
      expect(await runThemeLoader(ctx)).toBe('not-required');
      expect(detectorScripts(doc)).toHaveLength(0);
    }
  });

  it('exits without a request on other pages and on new quiz authoring pages', async () => {
    for (const path of [
      '/',
      '/courses/1',
      '/courses/1/quizzes',
      '/courses/1/quizzes/2/edit',
      '/courses/1/assignments/9/build',
      '/courses/1/assignments/9/settings',
      '/courses/1/assignments/9/moderate',
      '/courses/1/assignments/9/reports',
      '/courses/1/assignments/9/exports',
      '/courses/1/assignments/9/edit',
      '/courses/01/quizzes/2/take',
    ]) {
      const { ctx, requests } = loaderSetup(`${LMS}${path}`, {});
      expect(await runThemeLoader(ctx), path).toBe('not-an-lms-page');
      expect(requests, path).toHaveLength(0);
    }
  });

  it('loads the detector on the classic quiz page in an ordinary browser (its notice) and inside the exam browser (its exit)', async () => {
    const routes = { [`GET ${SERVICE}/api/exb/requirement/1/classicquiz_2`]: required({ success: true, exbRequired: true }) };
    const ordinary = loaderSetup(`${LMS}/courses/1/quizzes/2`, routes);
    expect(await runThemeLoader(ordinary.ctx)).toBe('loaded');
    const exam = loaderSetup(`${LMS}/courses/1/quizzes/2`, routes, { examBrowser: true });
    expect(await runThemeLoader(exam.ctx)).toBe('loaded');
  });

  it('recognizes an existing detector element by either route, with any query', async () => {
    const routes = { [`GET ${SERVICE}/api/exb/requirement/1/classicquiz_2`]: required({ success: true, exbRequired: true }) };
    for (const src of [`${SERVICE}/js/lms-exb-detector.js`, `${SERVICE}/js/lms-exb-detector.js?v=2`, `${SERVICE}/api/exb/lms-detector.js`]) {
      const { ctx, doc } = loaderSetup(`${LMS}/courses/1/quizzes/2/take`, routes, { html: `<script src="${src}"></script>` });
      expect(hasDetectorScript(doc, SERVICE), src).toBe(true);
      expect(await runThemeLoader(ctx)).toBe('already-loaded');
    }
    const other = loaderSetup(`${LMS}/courses/1/quizzes/2/take`, routes, {
      html: `<script src="https://evil.example/js/lms-exb-detector.js"></script>`,
    });
    expect(hasDetectorScript(other.doc, SERVICE)).toBe(false);
  });
});
