import type { LmsCore } from '../context.js';
import { hmac, randomToken, safeEqual } from '../ids.js';
import type { Assignment } from '../state.js';

/**
 * The New Quizzes engine: a tool of its own, served from its own origin, which the LMS launches into the assignment
 * page's tool frame. As in Canvas:
 * - `AssignmentsController#show` sends an external-tool assignment (a new quiz is one, `quiz_lti?`) through
 *   `ApplicationController#content_tag_redirect`, which renders the tool launch on the assignment page
 *   (`app/controllers/assignments_controller.rb`, `app/controllers/application_controller.rb`);
 * - the launch is a form the page posts into the `tool_content` iframe (`app/views/lti/_lti_message.html.erb`), to the
 *   New Quizzes tool's host (`*.quiz-lti-<region>-prod.instructure.com`, `lib/api/v1/assignment.rb`'s
 *   `external_tool_tag_attributes.url`), another site than the LMS;
 * - the engine itself asks for the quiz's `student_access_code` inside that frame, where the LMS page's scripts (the
 *   account's theme JavaScript among them) cannot reach.
 *
 * The stand-in shortens the LTI 1.3 exchange: the LMS signs a one-time launch hint (five minutes, like Canvas's
 * `lti_message_hint`) naming user, course and assignment, and the engine, living in the same process, checks it with
 * the LMS's secret instead of running the OIDC round trip. Everything after the launch is kept in the engine's
 * session, named in its own URLs, so no cookie has to cross sites.
 */

/** Canvas's `MESSAGE_HINT_LIFESPAN`. */
export const NEW_QUIZZES_LAUNCH_LIFETIME_MS = 5 * 60 * 1000;
export const NEW_QUIZZES_LOGIN_PATH = '/lti/login';

interface LaunchHint {
  userId: number;
  courseId: number;
  assignmentId: number;
  expiresAt: number;
  nonce: string;
}

export interface EngineSession {
  userId: number;
  courseId: number;
  assignmentId: number;
  /** The access code this session entered; the quiz opens while it equals the quiz's current code. */
  enteredCode: string | null;
  submitted: boolean;
}

/** Sessions kept at most; the oldest go first. */
const MAX_SESSIONS = 500;

export class NewQuizzesEngine {
  /** The engine's origin once its server runs (`startNewQuizzesServer`); `null` before. */
  url: string | null = null;
  private readonly usedNonces = new Set<string>();
  private readonly sessions = new Map<string, EngineSession>();

  constructor(private readonly lms: LmsCore) {}

  /** The hint the assignment page posts into the frame, for `userId` to take `assignment`. */
  launchHint(userId: number, assignment: Assignment): string {
    const hint: LaunchHint = {
      userId,
      courseId: assignment.courseId,
      assignmentId: assignment.id,
      expiresAt: this.lms.clock.now() + NEW_QUIZZES_LAUNCH_LIFETIME_MS,
      nonce: randomToken(12),
    };
    const payload = Buffer.from(JSON.stringify(hint)).toString('base64url');
    return `${payload}.${hmac(this.lms.secret, `new-quizzes-launch:${payload}`)}`;
  }

  /** Opens an engine session for a valid, unused hint; `undefined` for anything else. */
  launch(hint: string): string | undefined {
    const [payload, signature] = hint.split('.');
    if (!payload || !signature || !safeEqual(signature, hmac(this.lms.secret, `new-quizzes-launch:${payload}`))) return undefined;
    let data: LaunchHint;
    try {
      data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LaunchHint;
    } catch {
      return undefined;
    }
    if (data.expiresAt < this.lms.clock.now() || this.usedNonces.has(data.nonce)) return undefined;
    this.usedNonces.add(data.nonce);
    const id = randomToken(18);
    this.sessions.set(id, { userId: data.userId, courseId: data.courseId, assignmentId: data.assignmentId, enteredCode: null, submitted: false });
    for (const old of this.sessions.keys()) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      this.sessions.delete(old);
    }
    return id;
  }

  session(id: string): EngineSession | undefined {
    return this.sessions.get(id);
  }

  clear(): void {
    this.sessions.clear();
    this.usedNonces.clear();
  }
}
