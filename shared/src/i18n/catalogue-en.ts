import type { CatalogueTree, Namespace } from './catalogue-namespaces.js';
import common from './locales/en/common.json' with { type: 'json' };
import errors from './locales/en/errors.json' with { type: 'json' };
import policy from './locales/en/policy.json' with { type: 'json' };
import pages from './locales/en/pages.json' with { type: 'json' };
import launch from './locales/en/launch.json' with { type: 'json' };
import student from './locales/en/student.json' with { type: 'json' };
import teacher from './locales/en/teacher.json' with { type: 'json' };
import admin from './locales/en/admin.json' with { type: 'json' };
import examDay from './locales/en/examDay.json' with { type: 'json' };
import detector from './locales/en/detector.json' with { type: 'json' };

/** English: the source language and the fallback. Every namespace, in one module so a page loads only its own language. */
export const catalogue = { common, errors, policy, pages, launch, student, teacher, admin, examDay, detector } satisfies Record<Namespace, CatalogueTree>;
