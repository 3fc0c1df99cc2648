import type { PagerLabels } from '../../components/CursorPager';
import { i18next } from '../../i18n/i18n';

/** The words of a list's pager: pages of a list, or (`entries`) newer and older entries of a trail. */
export function pagerLabels(navigation: string, kind: 'pages' | 'entries' = 'pages'): PagerLabels {
  return kind === 'pages'
    ? {
        navigation,
        previous: i18next.t('admin:pager.previousPage'),
        next: i18next.t('admin:pager.nextPage'),
        page: (page) => i18next.t('admin:pager.page', { page }),
      }
    : { navigation, previous: i18next.t('admin:pager.newer'), next: i18next.t('admin:pager.older') };
}
