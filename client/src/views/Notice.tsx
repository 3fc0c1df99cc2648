import { PageMessage, type PageMessageProps } from '../components/PageMessage';
import { defineView } from '../lib/define-view';
import { httpUrl, optional, z } from '../lib/zod';

const schema = z.object({
  title: optional(z.string().min(1)),
  message: optional(z.string().min(1)),
  variant: optional(z.enum(['info', 'success', 'warning', 'error'])),
  /** Plain lines, or label/value pairs such as an error code. */
  details: optional(z.array(z.union([z.string(), z.object({ label: z.string(), value: z.string() })]))),
  lmsReturnUrl: optional(httpUrl),
});

type Defaults = Required<Pick<PageMessageProps, 'title' | 'message' | 'variant'>>;

// The server may send only a title or only details; each view name still reads sensibly then.
const DEFAULTS: Record<string, Defaults> = {
  notice: {
    title: 'Exam browser enforcement',
    message: 'Open this tool from your course or account in the LMS.',
    variant: 'info',
  },
  'role-not-authorized': {
    title: 'This tool is not available to you',
    message:
      'Exam browser enforcement is available to instructors and students of a course and to administrators of the root account. Your role here does not give access. If you think this is wrong, contact your LMS administrator.',
    variant: 'warning',
  },
  'oauth-error': {
    title: 'LMS authorization did not complete',
    message:
      'The LMS did not authorize this tool to work on your behalf. Close this window, return to the tool in the LMS and start the authorization again.',
    variant: 'error',
  },
  'not-found': {
    title: 'Page not found',
    message:
      'There is no page of the exam browser tool at this address. The link may be mistyped or out of date. Go back to your course in the LMS and open the tool or the quiz from there.',
    variant: 'info',
  },
  'lti-error': {
    title: 'The tool could not be launched',
    message:
      'The launch from the LMS could not be verified. Reload the page in the LMS and open the tool again. If this keeps happening, contact your LMS administrator.',
    variant: 'error',
  },
};

function Notice({ data, view }: { data: z.output<typeof schema>; view: string }) {
  const defaults = DEFAULTS[view] ?? DEFAULTS.notice!;
  return (
    <PageMessage
      title={data.title ?? defaults.title}
      message={data.message ?? defaults.message}
      variant={data.variant ?? defaults.variant}
      details={data.details ?? []}
      lmsReturnUrl={data.lmsReturnUrl}
    />
  );
}

export default defineView(schema, Notice);
