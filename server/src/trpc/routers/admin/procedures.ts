import { ErrorCodes } from '@exb/shared/error-codes.js';
import { authorizationStartPath } from '@exb/shared/oauth-popup-ticket.js';
import { DomainError } from '../../../domain-error.js';
import { ACTION_TOKEN_HEADER } from '../../../security/action-token.js';
import { rethrowAsDomainRefusal } from '../../error-mapping.js';
import { principalProcedure } from '../../init.js';

/** Where an administrator authorizes the tool's LMS access (Document 1), named by every authorization refusal. */
export const ADMIN_AUTHORIZE_PATH = authorizationStartPath('admin/oauth2authorize');

/**
 * The guards of the administrator's procedures (Document 2, `/api/admin`), in the order the contract asks for:
 * 1. the cross-site rule of mutations (`publicProcedure`), before anything else;
 * 2. an administrator principal in the session (`principalProcedure`); its account and user ids are the only ones any
 *    procedure uses;
 * 3. mutations: the action token in `x-exb-action-token`, bound to this session's principal, before any application
 *    logic or LMS call;
 * 4. the administrator confirmed through their own grant (`identity.requireAdministrator`, cached a few minutes).
 * Lower-layer failures leave as the contract's refusals; an authorization the LMS no longer accepts names the
 * administrator's authorization start.
 */
const administrator = principalProcedure('admin').use(({ ctx, next }) =>
  next({
    ctx: {
      ...ctx,
      admin: ctx.app.admin,
      /** The LMS acting with the administrator's own account-level grant, bound to the signed identity. */
      lms: ctx.app.lms.forPrincipal(ctx.principal),
    },
  }),
);

/** An administrator procedure whose failures are the contract's refusals; nothing is confirmed through the LMS yet. */
export const adminSession = administrator.use(async ({ next }) => {
  const result = await next();
  if (!result.ok) rethrowAsDomainRefusal(result.error, { authorizeUrl: ADMIN_AUTHORIZE_PATH });
  return result;
});

export function actionTokenRefusal(reason: 'missing' | 'malformed' | 'expired' | 'mismatch'): DomainError {
  const message =
    reason === 'expired'
      ? 'This page’s permission to make changes has expired. Reload the tool, then try again.'
      : 'This change did not come from your administration page in this session. Reload the tool from the LMS, then try again.';
  return new DomainError(ErrorCodes.INVALID_ACTION_TOKEN, message);
}

export const adminQuery = adminSession.use(async ({ ctx, next }) => {
  await ctx.app.identity.requireAdministrator(ctx.principal);
  return next();
});

/**
 * Guards 1 to 3 of a mutation. A procedure that must check its own input before anything may reach the LMS (the course
 * reset's confirmation) builds on this and confirms the administrator itself.
 */
export const adminActionSession = adminSession.use(({ ctx, next }) => {
  const check = ctx.app.actionTokens.verify(ctx.requestHeaders[ACTION_TOKEN_HEADER], ctx.session, 'admin-mutation');
  if (!check.ok) throw actionTokenRefusal(check.reason);
  return next();
});

export const adminMutation = adminActionSession.use(async ({ ctx, next }) => {
  await ctx.app.identity.requireAdministrator(ctx.principal);
  return next();
});
