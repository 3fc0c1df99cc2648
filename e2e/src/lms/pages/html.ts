import type { LmsCore } from '../context.js';
import { examBrowserFrameScript } from '../exam-browser/frame-script.js';
import type { User, WebSession } from '../state.js';

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON safe to place inside a `<script>` element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

const STYLE = `
  body { font-family: system-ui, sans-serif; margin: 0; color: #2d3b45; }
  header.lms-header { background: #394b58; color: #fff; padding: 8px 16px; display: flex; gap: 16px; align-items: center; }
  header.lms-header a { color: #fff; }
  main { padding: 16px; }
  .btn { padding: 6px 12px; border: 1px solid #c7cdd1; border-radius: 4px; background: #f5f5f5; cursor: pointer; }
  .btn-primary { background: #0374b5; color: #fff; border-color: #0374b5; text-decoration: none; display: inline-block; }
  table { border-collapse: collapse; } td, th { padding: 4px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
  iframe#tool_content { width: 100%; height: 80vh; border: 1px solid #c7cdd1; }
`;

/**
 * Stand-in for the LMS's own front end: links with `data-method="post"` submit as a POST carrying the CSRF token,
 * as the LMS's scripts do for the "Take the Quiz" button.
 */
const DATA_METHOD_SCRIPT = `
document.addEventListener('click', function (event) {
  var link = event.target && event.target.closest ? event.target.closest('a[data-method]') : null;
  if (!link) return;
  event.preventDefault();
  var form = document.createElement('form');
  form.method = 'post';
  form.action = link.href;
  var token = document.createElement('input');
  token.type = 'hidden';
  token.name = 'authenticity_token';
  token.value = (window.ENV && window.ENV.AUTHENTICITY_TOKEN) || '';
  form.appendChild(token);
  document.body.appendChild(form);
  form.submit();
});`;

export interface PageOptions {
  title: string;
  body: string;
  url: URL;
  user?: User | undefined;
  session?: WebSession | undefined;
  /** Extra `window.ENV` entries the page's scripts read. */
  env?: Record<string, unknown>;
  status?: number;
}

/**
 * A page in the LMS's application layout. Like the real one it ends with the account's theme JavaScript, on every
 * page, unless the URL says `global_includes=0`.
 */
export function applicationPage(lms: LmsCore, options: PageOptions): string {
  const root = lms.state.rootAccount();
  // Like the LMS, the page speaks its user's language: `<html lang>` and `ENV.LOCALE` both carry it.
  const locale = options.user?.locale ?? 'en';
  const env = {
    LOCALE: locale,
    current_user_id: options.user ? String(options.user.id) : null,
    current_user: options.user ? { id: String(options.user.id), display_name: options.user.name } : null,
    DOMAIN_ROOT_ACCOUNT_ID: String(root.id),
    AUTHENTICITY_TOKEN: options.session?.csrfToken ?? null,
    ...options.env,
  };
  const theme =
    lms.state.themeJavaScriptUrl && options.url.searchParams.get('global_includes') !== '0'
      ? `\n<script src="${escapeHtml(lms.state.themeJavaScriptUrl)}"></script>`
      : '';
  // First in the head, as the real browser provides it before any page script runs.
  const examBrowser = lms.examBrowser.enabled ? `\n<script>${examBrowserFrameScript()}</script>` : '';
  const who = options.user
    ? `<span id="identity">Logged in as <strong>${escapeHtml(options.user.name)}</strong></span> <a href="/logout">Log out</a>`
    : `<a href="/login">Log in</a>`;
  return `<!DOCTYPE html>
<html lang="${escapeHtml(locale)}">
<head>
<meta charset="utf-8">
<title>${escapeHtml(options.title)}: ${escapeHtml(root.name)}</title>${examBrowser}
<style>${STYLE}</style>
<script>window.ENV = ${scriptJson(env)};</script>
</head>
<body class="application">
<header class="lms-header"><a href="/">${escapeHtml(root.name)}</a><span style="flex:1"></span>${who}</header>
<main id="content">
${options.body}
</main>
<script>${DATA_METHOD_SCRIPT}</script>${theme}
</body>
</html>`;
}

/** A page outside the application layout (login, OAuth approval, LTI hand-offs): no theme JavaScript. */
export function barePage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

/** An HTML form that posts itself on load: how the LMS hands LTI messages to a tool. */
export function autoPostForm(options: {
  action: string;
  fields: Record<string, string>;
  target?: string;
  id?: string;
}): string {
  const inputs = Object.entries(options.fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n  ');
  const id = options.id ?? 'lti_form';
  return `<form action="${escapeHtml(options.action)}" method="POST" id="${escapeHtml(id)}"${
    options.target ? ` target="${escapeHtml(options.target)}"` : ''
  } data-lti-launch="true">
  ${inputs}
</form>
<script>document.getElementById(${scriptJson(id)}).submit();</script>`;
}
