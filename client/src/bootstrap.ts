import { z } from './lib/zod';

/** The element every server-rendered shell carries its data in. */
export const BOOTSTRAP_ELEMENT_ID = 'exb-bootstrap';

/**
 * What every shell has in common. Views validate the rest themselves, so unknown keys are kept
 * rather than stripped.
 */
export const bootstrapSchema = z.looseObject({
  view: z.string().min(1),
  /** Present where the server issued an action token for administrator mutations. */
  actionToken: z.string().min(1).optional(),
  /** The page's language, chosen by the server (`shared/src/i18n/locale.ts`). */
  locale: z.string().optional(),
  /** The session as a header token, on the session's pages (`lib/session-token.ts`). */
  sessionToken: z.string().min(1).optional(),
});

export type Bootstrap = z.infer<typeof bootstrapSchema>;

export type BootstrapResult =
  | { ok: true; bootstrap: Bootstrap }
  | { ok: false; reason: BootstrapFailure; details: string[] };

/** Why a page's data could not be read; each is a message of the `common` catalogue (`pageUnavailable.*`). */
export type BootstrapFailure = 'bootstrapMissing' | 'bootstrapInvalid' | 'bootstrapIncomplete';

export function readBootstrap(doc: Document = document): BootstrapResult {
  const element = doc.getElementById(BOOTSTRAP_ELEMENT_ID);
  if (!(element instanceof HTMLScriptElement) || element.type !== 'application/json') {
    return {
      ok: false,
      reason: 'bootstrapMissing',
      details: [`Expected <script id="${BOOTSTRAP_ELEMENT_ID}" type="application/json">.`],
    };
  }

  let raw: unknown;
  try {
    raw = JSON.parse(element.textContent ?? '');
  } catch (error) {
    return {
      ok: false,
      reason: 'bootstrapInvalid',
      details: [error instanceof Error ? error.message : String(error)],
    };
  }

  const parsed = bootstrapSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, reason: 'bootstrapIncomplete', details: describeIssues(parsed.error) };
  }
  return { ok: true, bootstrap: parsed.data };
}

/** One readable line per problem; paths only, never the offending values. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
}
