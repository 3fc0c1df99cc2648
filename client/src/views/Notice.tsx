import { isErrorCode } from '@exb/shared/error-codes.js';
import { useTranslation } from 'react-i18next';
import { PageMessage, type MessageDetail, type PageMessageProps } from '../components/PageMessage';
import { defineView } from '../lib/define-view';
import { errorMessage } from '../lib/error-message';
import { httpUrl, optional, z } from '../lib/zod';

const detailSchema = z.union([z.string(), z.object({ label: z.string(), value: z.string() })]);

const schema = z.object({
  title: optional(z.string().min(1)),
  message: optional(z.string().min(1)),
  variant: optional(z.enum(['info', 'success', 'warning', 'error'])),
  /** Plain lines, or label/value pairs such as an error code. */
  details: optional(z.array(detailSchema)),
  lmsReturnUrl: optional(httpUrl),
  /** A page of the LMS that resolves the notice (where an administrator finds the administration), with its words. */
  link: optional(z.object({ href: httpUrl, text: z.string().min(1) })),
  /** The refusal's code: an `error_code` of the contract, a failed launch check, an OAuth callback failure. */
  errorCode: optional(z.string().min(1)),
});

type Data = z.output<typeof schema>;

/** Each view's own words (`pages:notice.<key>`), for a server that sends only a title or only details. */
const DEFAULTS = {
  notice: { key: 'notice', variant: 'info' },
  'role-not-authorized': { key: 'roleNotAuthorized', variant: 'warning' },
  'oauth-error': { key: 'oauthError', variant: 'error' },
  'not-found': { key: 'notFound', variant: 'info' },
  'lti-error': { key: 'ltiError', variant: 'error' },
} as const satisfies Record<string, { key: string; variant: PageMessageProps['variant'] }>;

type NoticeView = keyof typeof DEFAULTS;

function isNoticeView(view: string): view is NoticeView {
  return Object.hasOwn(DEFAULTS, view);
}

/** The code of the notice: its own field, or a detail whose value is a code of the contract. */
function codeOf(data: Data): string | undefined {
  if (data.errorCode !== undefined) return data.errorCode;
  return data.details?.find((detail): detail is { label: string; value: string } => typeof detail !== 'string' && isErrorCode(detail.value))
    ?.value;
}

/**
 * A server notice (the server writes its title and message in the page's language) or one of the client's defaults. A
 * notice about a code of the contract says the `errors` message of that code; the launch checks and OAuth callback
 * failures are not codes of the contract, and their message is the server's.
 */
function Notice({ data, view }: { data: Data; view: string }) {
  const { t } = useTranslation(['pages', 'common']);
  const defaults = DEFAULTS[isNoticeView(view) ? view : 'notice'];
  const code = codeOf(data);
  // The code's detail is labelled in the page's language, whatever label the server gave it.
  const details = (data.details ?? []).map(
    (detail): MessageDetail => (typeof detail !== 'string' && detail.value === code ? { label: t('common:errorCode'), value: detail.value } : detail),
  );
  return (
    <PageMessage
      title={data.title ?? t(`notice.${defaults.key}.title`)}
      message={errorMessage(code) ?? data.message ?? t(`notice.${defaults.key}.message`)}
      variant={data.variant ?? defaults.variant}
      details={details}
      lmsReturnUrl={data.lmsReturnUrl}
      link={data.link}
    />
  );
}

export default defineView(schema, Notice);
