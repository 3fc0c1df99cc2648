import type { LmsCore } from './context.js';
import type { NewQuizzesEngine } from './new-quizzes/engine.js';
import type { OAuthProvider } from './oauth/provider.js';
import type { WebSessions } from './pages/session.js';
import type { Platform } from './platform/platform.js';

/** The LMS as its route handlers see it: the shared core and the parts built on it. */
export interface LmsRuntime extends LmsCore {
  readonly oauth: OAuthProvider;
  readonly platform: Platform;
  readonly sessions: WebSessions;
  /** The New Quizzes engine, a tool on an origin of its own that new-quiz assignment pages frame. */
  readonly newQuizzes: NewQuizzesEngine;
}
