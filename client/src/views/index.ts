import { lazy, type LazyExoticComponent } from 'react';
import type { ViewComponent } from '../lib/define-view';

type LazyView = LazyExoticComponent<ViewComponent>;

const notice: LazyView = lazy(() => import('./Notice'));
const oauthConnected: LazyView = lazy(() => import('./OAuthConnected'));

/**
 * View name (the bootstrap's `view`) → component. Each view is its own chunk, so a page only
 * downloads the view it shows. To add a view, create `views/<Name>.tsx` whose default export is
 * `defineView(schema, Component)` and add one line here.
 */
const registry: Readonly<Record<string, LazyView>> = {
  'service-status': lazy(() => import('./ServiceStatus')),
  'admin-setup': lazy(() => import('./AdminSetup')),
  notice,
  'role-not-authorized': notice,
  'oauth-error': notice,
  'lms-oauth-connected': oauthConnected,
  'student-session-connected': oauthConnected,
  'lti-error': notice,
  'not-found': notice,
  teacher: lazy(() => import('./Teacher')),
  student: lazy(() => import('./Student')),
  admin: lazy(() => import('./Admin')),
  'exb-required': lazy(() => import('./ExbRequired')),
  'exb-setup-check': lazy(() => import('./ExbSetupCheck')),
};

export function resolveView(name: string): LazyView | undefined {
  // Own properties only: a view named "constructor" or "toString" is unknown, not Object's.
  return Object.hasOwn(registry, name) ? registry[name] : undefined;
}
