/**
 * The message catalogues: one JSON file per language and namespace, `locales/<language>/<namespace>.json`, so a
 * translator edits text without touching code. Each namespace holds one surface's words:
 * - `common`: what every page shares (page chrome, buttons, fallbacks);
 * - `errors`: one message per error code (`shared/src/error-codes.ts`, the LTI launch refusals);
 * - `policy`: the field messages of the exam-settings rules (`shared/src/exb-policy/`);
 * - `pages`: the public views (service status, setup, notices, the required-browser and setup-check pages);
 * - `launch`: what the server renders itself: launch refusals, the hand-off, exit and outside-the-LMS pages;
 * - `student`, `teacher`, `admin`: their views;
 * - `examDay`: the exam-day board the teacher and the administrator share;
 * - `detector`: the prompts the detector shows inside the LMS page.
 */
export const NAMESPACES = ['common', 'errors', 'policy', 'pages', 'launch', 'student', 'teacher', 'admin', 'examDay', 'detector'] as const;

export type Namespace = (typeof NAMESPACES)[number];

/** A catalogue is nested objects of strings; i18next reads `a.b.c` keys, `{{name}}` values and `_one`/`_other` plurals. */
export interface CatalogueTree {
  readonly [key: string]: string | CatalogueTree;
}
