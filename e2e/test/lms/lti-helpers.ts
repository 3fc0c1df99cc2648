import type { BuiltLaunch, MockLms } from '../../src/lms/index.js';

function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Reads an auto-posting form: its action and hidden fields. */
export function readForm(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) throw new Error(`No form in:\n${html}`);
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescapeHtml(match[1]!)] = unescapeHtml(match[2]!);
  }
  return { action: unescapeHtml(action), fields };
}

/** The tool's side of step 2: the authentication request it redirects the browser to. */
export function authenticationRequest(lms: MockLms, launch: BuiltLaunch, overrides: Record<string, string | undefined> = {}) {
  const params: Record<string, string | undefined> = {
    scope: 'openid',
    response_type: 'id_token',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: launch.loginParams.client_id,
    redirect_uri: `${lms.tool.baseUrl}/lti/launch`,
    login_hint: launch.loginParams.login_hint,
    lti_message_hint: launch.loginParams.lti_message_hint,
    nonce: 'nonce-abc',
    state: 'state-xyz',
    ...overrides,
  };
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
  return query;
}

/** Runs step 2 through `/api/lti/authorize_redirect` like a browser with an LMS session for `person`. */
export async function completeLaunch(
  lms: MockLms,
  launch: BuiltLaunch,
  options: { cookie?: string | null; overrides?: Record<string, string | undefined> } = {},
): Promise<Response> {
  const query = authenticationRequest(lms, launch, options.overrides);
  const redirect = await fetch(`${lms.baseUrl}/api/lti/authorize_redirect?${query}`, { redirect: 'manual' });
  if (redirect.status !== 302) throw new Error(`authorize_redirect answered ${redirect.status}`);
  const cookie = options.cookie === undefined ? lms.webSessionCookie(launch.user.id) : options.cookie;
  return fetch(redirect.headers.get('location')!, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
}
