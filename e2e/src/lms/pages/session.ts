import type { LmsRuntime } from '../context.js';
import { hmac, randomToken, safeEqual } from '../ids.js';
import type { User, WebSession } from '../state.js';

export const SESSION_COOKIE = 'canvas_session';

/** The LMS accepts a session token for 30 seconds either side of its creation; it is not single-use. */
export const SESSION_TOKEN_VALIDITY_MS = 30 * 1000;

/** Browser sessions of the LMS (who is logged in), and the session tokens that hand an API user to a browser. */
export class WebSessions {
  constructor(private readonly lms: LmsRuntime) {}

  create(userId: number): WebSession {
    const session: WebSession = {
      id: randomToken(24),
      userId,
      csrfToken: randomToken(24),
      quizAccessCodes: new Map(),
      createdAt: this.lms.clock.now(),
    };
    this.lms.state.webSessions.set(session.id, session);
    return session;
  }

  fromCookies(cookies: Record<string, string>): WebSession | undefined {
    const id = cookies[SESSION_COOKIE];
    const session = id ? this.lms.state.webSessions.get(id) : undefined;
    return session && this.lms.state.users.has(session.userId) ? session : undefined;
  }

  userOf(session: WebSession | undefined): User | undefined {
    return session ? this.lms.state.users.get(session.userId) : undefined;
  }

  setCookie(session: WebSession): string {
    const secure = this.lms.baseUrl.startsWith('https:');
    // A browser reaches the LMS again from inside the tool's frame (OIDC authorization, OAuth approval), so the
    // cookie must travel there: SameSite=None where cookies can be Secure, Lax on plain-http development origins.
    return `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; ${secure ? 'SameSite=None; Secure' : 'SameSite=Lax'}`;
  }

  /** Logs `person` in and returns the `Cookie` header value for programmatic requests to LMS pages. */
  cookieFor(person: number | string): string {
    const session = this.create(this.lms.state.requireUser(person).id);
    return `${SESSION_COOKIE}=${session.id}`;
  }

  issueSessionToken(userId: number): string {
    const payload = Buffer.from(JSON.stringify({ created_at: this.lms.clock.now(), user_id: userId })).toString('base64url');
    return `${payload}.${hmac(this.lms.secret, `session-token:${payload}`)}`;
  }

  verifySessionToken(token: string): number | undefined {
    const [payload, signature] = token.split('.');
    if (!payload || !signature || !safeEqual(signature, hmac(this.lms.secret, `session-token:${payload}`))) return undefined;
    try {
      const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { created_at: number; user_id: number };
      if (Math.abs(this.lms.clock.now() - data.created_at) > SESSION_TOKEN_VALIDITY_MS) return undefined;
      return this.lms.state.users.has(data.user_id) ? data.user_id : undefined;
    } catch {
      return undefined;
    }
  }
}
