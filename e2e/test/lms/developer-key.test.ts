import { describe, expect, it } from 'vitest';
import { ADMIN_SCOPES, APPLICATION_SCOPES } from '../../src/lms/index.js';
import { TOOL, tokenFor, useInProcessLms } from './helpers.js';

/**
 * An API developer key as an administrator could leave it: the scopes the key editor offers (no
 * `url:GET|/api/v1/login/session_token`) and "Allow Include Parameters" off, which is Canvas's default.
 */
const SESSION_TOKEN_SCOPE = 'url:GET|/api/v1/login/session_token';
const { lms } = useInProcessLms({
  tool: { ...TOOL, oauthScopes: ADMIN_SCOPES.filter((scope) => scope !== SESSION_TOKEN_SCOPE) },
  allowIncludes: false,
});
const REDIRECT_URI = `${TOOL.baseUrl}/api/oauth2callback`;

function authUrl(params: Record<string, string>): string {
  return `${lms.baseUrl}/login/oauth2/auth?${new URLSearchParams({
    client_id: TOOL.oauthClientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    state: 'state-7',
    scope: APPLICATION_SCOPES.join(' '),
    ...params,
  })}`;
}

async function refusal(url: string): Promise<URLSearchParams> {
  const response = await fetch(url, { headers: { cookie: lms.webSessionCookie('instructor') }, redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  return location.searchParams;
}

// Canvas `app/controllers/oauth2_provider_controller.rb#auth` and `lib/canvas/oauth/provider.rb#valid_scopes?`.
describe('a developer key that lacks a scope the tool requests', () => {
  it('refuses the whole authorization with invalid_scope, naming the missing scope and keeping the state', async () => {
    const answer = await refusal(authUrl({}));
    expect(answer.get('error')).toBe('invalid_scope');
    expect(answer.get('state')).toBe('state-7');
    expect(answer.get('error_description')).toBe(
      `A requested scope is invalid, unknown, malformed, or exceeds the scope granted by the resource owner. The following scopes were requested, but not granted: ${SESSION_TOKEN_SCOPE}`,
    );
    expect(answer.has('code')).toBe(false);
  });

  it('lists several missing scopes as a sentence, as Rails’ to_sentence does', async () => {
    const extra = ['url:DELETE|/api/v1/courses/:id', 'url:POST|/api/v1/courses/:course_id/quizzes'];
    const answer = await refusal(authUrl({ scope: [...APPLICATION_SCOPES, ...extra].join(' ') }));
    expect(answer.get('error_description')).toMatch(
      /not granted: url:GET\|\/api\/v1\/login\/session_token, url:DELETE\|\/api\/v1\/courses\/:id, and url:POST\|\/api\/v1\/courses\/:course_id\/quizzes$/,
    );
  });

  it('checks the scopes before the response type', async () => {
    const answer = await refusal(authUrl({ response_type: 'token' }));
    expect(answer.get('error')).toBe('invalid_scope');
    const granted = APPLICATION_SCOPES.filter((scope) => scope !== SESSION_TOKEN_SCOPE).join(' ');
    const wrongType = await refusal(authUrl({ response_type: 'token', scope: granted }));
    expect(wrongType.get('error')).toBe('unsupported_response_type');
    expect(wrongType.get('error_description')).toBe('Only response_type=code is permitted');
  });

  it('still grants what the key has', async () => {
    const granted = APPLICATION_SCOPES.filter((scope) => scope !== SESSION_TOKEN_SCOPE);
    const response = await fetch(authUrl({ scope: granted.join(' ') }), { headers: { cookie: lms.webSessionCookie('instructor') } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('id="oauth2_accept"');
  });
});

// Canvas `lib/authentication_methods.rb#validate_scopes` and `#filter_includes` (only `uuid` survives).
describe('a scoped developer key without Allow Include Parameters', () => {
  const admin = () => tokenFor(lms, 'administrator', ADMIN_SCOPES.filter((scope) => scope !== SESSION_TOKEN_SCOPE));

  it('answers a token’s course read without the included term', async () => {
    const response = await fetch(`${lms.baseUrl}/api/v1/courses/101?include[]=term&include[]=total_students`, {
      headers: { authorization: `Bearer ${admin()}` },
    });
    expect(response.status).toBe(200);
    const course = (await response.json()) as Record<string, unknown>;
    expect(course.id).toBe(101);
    expect(course).not.toHaveProperty('term');
    expect(course).not.toHaveProperty('total_students');
    // The call log keeps what the client sent.
    expect(lms.calls.last('GET /api/v1/courses/:id')?.query).toMatchObject({ include: ['term', 'total_students'] });
  });

  it('drops a single include value too, and filters account course lists the same way', async () => {
    const single = await fetch(`${lms.baseUrl}/api/v1/courses/101?include=term`, { headers: { authorization: `Bearer ${admin()}` } });
    expect(await single.json()).not.toHaveProperty('term');
    const list = await fetch(`${lms.baseUrl}/api/v1/accounts/1/courses?include[]=term&include[]=teachers&per_page=5`, {
      headers: { authorization: `Bearer ${admin()}` },
    });
    const courses = (await list.json()) as Record<string, unknown>[];
    expect(courses.length).toBeGreaterThan(0);
    for (const course of courses) {
      expect(course).not.toHaveProperty('term');
      expect(course).not.toHaveProperty('teachers');
    }
  });

  it('keeps the includes of the LMS’s own pages, which use the browser session and no token', async () => {
    const response = await fetch(`${lms.baseUrl}/api/v1/courses/101?include[]=term`, { headers: { cookie: lms.webSessionCookie('administrator') } });
    expect(response.status).toBe(200);
    // Session-authenticated JSON carries Canvas's `while(1);` prefix.
    expect(JSON.parse((await response.text()).replace(/^while\(1\);/, ''))).toHaveProperty('term');
  });
});
