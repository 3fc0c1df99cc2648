import type { FastifyReply } from 'fastify';
import type { Locale } from '@exb/shared/i18n/locale.js';
import type { AppConfig } from '../config/app-config.js';
import { ACCOUNT_NAVIGATION_TEXT } from '../domain/lti-registration.js';
import { translator } from '../i18n/translator.js';
import { lmsAccountsUrl } from '../lms/pages.js';
import type { LtiError } from '../lti/errors.js';
import { RATE_LIMIT_RETRY_AFTER_SECONDS } from '../security/admission-budget.js';
import { requestLocale } from '../security/session.js';
import type { ShellRenderer } from './shell.js';

/** What a launch's refusal page is rendered with: the shell, and the LMS the page leads back to. */
export interface RefusalPageContext {
  readonly shell: ShellRenderer;
  readonly config: Pick<AppConfig, 'lmsUrl'>;
}

/**
 * Renders a refused login or launch: the `lti-error` view with the failed check's code, never a token value, worded
 * in `locale` (by default the request's). The code and the status never depend on the language.
 */
export function sendLtiError(reply: FastifyReply, ctx: RefusalPageContext, error: LtiError, locale = requestLocale(reply.request)): FastifyReply {
  reply.request.log.info({ code: error.code, status: error.status }, 'lti request refused');
  if (error.status === 429) reply.header('retry-after', String(RATE_LIMIT_RETRY_AFTER_SECONDS));
  const { title, message, details } = error.wording(locale);
  return ctx.shell.send(
    reply,
    {
      view: 'lti-error',
      title,
      message,
      errorCode: error.code,
      details: [...details, { label: translator(locale)('launch:errorCode'), value: error.code }],
      lmsReturnUrl: ctx.config.lmsUrl,
    },
    { status: error.status, title, locale },
  );
}

/**
 * The page for a launch whose role the tool does not serve, worded in `locale`. An administrator who opened a course's
 * tab is told where the administration is instead: the root account's navigation, reached from the LMS's list of the
 * accounts one administers (Canvas's `GET /accounts`, `AccountsController#index`). The tool does not know its own id
 * in the LMS, so it cannot link to the navigation entry itself.
 */
export function sendNotAuthorized(reply: FastifyReply, ctx: RefusalPageContext, locale: Locale, administratorInCourse = false): FastifyReply {
  const t = translator(locale);
  if (administratorInCourse) {
    const title = t('launch:notAuthorized.administratorInCourse.title');
    const message = t('launch:notAuthorized.administratorInCourse.message', { navigation: ACCOUNT_NAVIGATION_TEXT });
    const link = { href: lmsAccountsUrl(ctx.config.lmsUrl), text: t('launch:notAuthorized.administratorInCourse.link') };
    return ctx.shell.send(
      reply,
      { view: 'role-not-authorized', title, message, variant: 'info', link, lmsReturnUrl: ctx.config.lmsUrl },
      { title, locale },
    );
  }
  const title = t('launch:notAuthorized.title');
  return ctx.shell.send(
    reply,
    { view: 'role-not-authorized', title, message: t('launch:notAuthorized.message'), lmsReturnUrl: ctx.config.lmsUrl },
    { title, locale },
  );
}

