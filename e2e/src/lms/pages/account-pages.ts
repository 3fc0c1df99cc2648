import type { LmsRuntime } from '../runtime.js';
import { htmlResponse } from '../errors.js';
import { accountPermissions, isAccountAdmin } from '../permissions.js';
import { publicRoute, type RouteDef, type RouteRequest } from '../router.js';
import type { Account, User, WebSession } from '../state.js';
import { loggedInVisitor, notFoundPage, unauthorizedPage } from './common.js';
import { applicationPage, escapeHtml } from './html.js';

function page(lms: LmsRuntime, req: RouteRequest, who: { user: User; session: WebSession }, title: string, body: string, env = {}): Response {
  return htmlResponse(applicationPage(lms, { title, url: req.url, user: who.user, session: who.session, env, body }));
}

/**
 * The accounts the person administers directly, as Canvas's "Accounts I Manage" page lists them (`GET /accounts`,
 * `AccountsController#index` with `app/views/accounts/index.html.erb`: each account's name, linking to its page).
 */
function accountList(req: RouteRequest): Response {
  const { lms } = req;
  const who = loggedInVisitor(req);
  if (who instanceof Response) return who;
  const accounts = lms.state
    .adminMembershipsOf(who.user.id)
    .map((membership) => lms.state.accounts.get(membership.accountId))
    .filter((account): account is Account => account !== undefined);
  const items = accounts.map((account) => `<li><a href="/accounts/${account.id}">${escapeHtml(account.name)}</a></li>`).join('');
  return page(lms, req, who, 'Accounts', `<h1>Accounts I Manage</h1>${accounts.length === 0 ? '<p>No Accounts</p>' : `<ul class="context_list">${items}</ul>`}`);
}

/**
 * An account's page with its navigation, for its administrators. The tool's account-navigation tab shows where the
 * placement allows it, as Canvas builds the account's tabs (`Account#tabs_available` with the tools'
 * `account_navigation` placements): not in a sub-account for a `root_account_only` placement, and only to someone
 * holding the placement's visibility and required permissions.
 */
function accountHome(req: RouteRequest): Response {
  const { lms, params, url } = req;
  const who = loggedInVisitor(req);
  if (who instanceof Response) return who;
  const account = lms.state.accounts.get(Number(params.account_id));
  if (!account) return notFoundPage(lms, who, url);
  if (!isAccountAdmin(lms.state, who.user.id, account.id)) return unauthorizedPage(lms, who, url);
  const placement = lms.platform.registration.placements.get('account_navigation');
  const rights = accountPermissions(lms.state, who.user.id, account.id, lms.settings);
  const shown =
    placement !== undefined &&
    placement.enabled &&
    (!placement.rootAccountOnly || account.parentAccountId === null) &&
    rights.has('read_as_admin') &&
    placement.requiredPermissions.every((permission) => rights.has(permission));
  const tab = shown ? `<a href="/accounts/${account.id}/external_tools/${lms.tool.toolId}">${escapeHtml(placement.text ?? 'Tool')}</a>` : '';
  return page(
    lms,
    req,
    who,
    account.name,
    `<h1>${escapeHtml(account.name)}</h1>
<nav id="section-tabs" aria-label="Account navigation"><a href="/accounts/${account.id}">Courses</a> ${tab}</nav>`,
    { ACCOUNT_ID: String(account.id), context_asset_string: `account_${account.id}` },
  );
}

export function accountPageRoutes(): RouteDef[] {
  return [publicRoute('GET', '/accounts', accountList), publicRoute('GET', '/accounts/:account_id', accountHome)];
}
