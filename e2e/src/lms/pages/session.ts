import type { LmsCore } from '../context.js';
import { hmac, randomToken, safeEqual } from '../ids.js';
import type { User, WebSession } from '../state.js';

export const SESSION_COOKIE = 'canvas_session';

/**
 * Canvas accepts a session token for 30 seconds on either side of its creation, and it is not single-use: anyone
 * holding the URL can open it again within the window (`lib/session_token.rb`, `VALIDITY_PERIOD = 30`, `valid?`
 * checks `created_at.between?(now - 30 s, now + 30 s)`; minted by `app/controllers/login_controller.rb#session_token`).
 * The token carries `created_at` in whole seconds (`as_json` writes `created_at.to_i`) and is compared with the
 * server's fractional clock, which the development LMS's `Clock` stands for.
 */
export const SESSION_TOKEN_VALIDITY_MS = 30 * 1000;

/** Browser sessions of the LMS (who is logged in), and the session tokens that hand an API user to a browser. */
export class WebSessions {
  constructor(private readonly lms: LmsCore) {}

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
    const { protocol, hostname } = new URL(this.lms.baseUrl);
    // Browsers keep `Secure` cookies on https and on loopback hosts (secure contexts), also over plain http.
    const secure = protocol === 'https:' || hostname === 'localhost' || hostname === '[::1]' || hostname.startsWith('127.');
    // A browser reaches the LMS again from inside the tool's frame (OIDC authorization, OAuth approval), so the
    // cookie must travel there, also when the tool's own page sends the frame there (the platform-storage login page,
    // a cross-site initiator): SameSite=None where cookies can be Secure, as the LMS's own session cookie is; Lax on
    // other plain-http development origins.
    return `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; ${secure ? 'SameSite=None; Secure' : 'SameSite=Lax'}`;
  }

  /** Logs `person` in and returns the `Cookie` header value for programmatic requests to LMS pages. */
  cookieFor(person: number | string): string {
    const session = this.create(this.lms.state.requireUser(person).id);
    return `${SESSION_COOKIE}=${session.id}`;
  }

  issueSessionToken(userId: number): string {
    const payload = Buffer.from(JSON.stringify({ created_at: this.lms.clock.seconds(), user_id: userId })).toString('base64url');
    return `${payload}.${hmac(this.lms.secret, `session-token:${payload}`)}`;
  }

  verifySessionToken(token: string): number | undefined {
    const [payload, signature] = token.split('.');
    if (!payload || !signature || !safeEqual(signature, hmac(this.lms.secret, `session-token:${payload}`))) return undefined;
    try {
      const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { created_at: number; user_id: number };
      if (!Number.isInteger(data.created_at) || Math.abs(this.lms.clock.now() - data.created_at * 1000) > SESSION_TOKEN_VALIDITY_MS) return undefined;
      return this.lms.state.users.has(data.user_id) ? data.user_id : undefined;
    } catch {
      return undefined;
    }
  }
}
