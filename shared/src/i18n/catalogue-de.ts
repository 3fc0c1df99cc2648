import type { CatalogueTree, Namespace } from './catalogue-namespaces.js';
import common from './locales/de/common.json' with { type: 'json' };
import errors from './locales/de/errors.json' with { type: 'json' };
import policy from './locales/de/policy.json' with { type: 'json' };
import pages from './locales/de/pages.json' with { type: 'json' };
import launch from './locales/de/launch.json' with { type: 'json' };
import student from './locales/de/student.json' with { type: 'json' };
import teacher from './locales/de/teacher.json' with { type: 'json' };
import admin from './locales/de/admin.json' with { type: 'json' };
import examDay from './locales/de/examDay.json' with { type: 'json' };
import detector from './locales/de/detector.json' with { type: 'json' };

/** German. Every namespace, in one module so a page loads only its own language. */
export const catalogue = { common, errors, policy, pages, launch, student, teacher, admin, examDay, detector } satisfies Record<Namespace, CatalogueTree>;
