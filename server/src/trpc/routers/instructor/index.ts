import { ensureAuthorization, type AuthorizationCheck } from '../../../oauth/status.js';
import { router } from '../../init.js';
import { assessmentsRouter } from './assessments.js';
import { courseDefaultsRouter, examToolsRouter } from './course-defaults.js';
import { enforcementRouter } from './enforcement.js';
import { passwordsRouter } from './passwords.js';
import { policyRouter, urlRulesRouter } from './policy.js';
import { preExamSweepRouter } from './pre-exam-sweep.js';
import { withRefusals } from './procedures.js';

/**
 * The instructor's management API (Document 2, `/api/quizzes`), behind the guards of `procedures.ts`. The REST paths
 * of the contract call these same procedures (`http/routes/session/quizzes-rest.ts`), so the answers here are the contract's bodies.
 */
export const instructorRouter = router({
  authorization: router({
    /**
     * The teacher view's connection check: refreshes an expired access token when the stored refresh token still
     * works, so only an instructor whose grant is gone or refused is asked to authorize. (`GET /api/oauth2status`
     * answers from what is stored and never refreshes.)
     */
    // Not course-scoped: it is what tells the view to ask for the connection that proves the user and the course.
    ensure: withRefusals.query(({ ctx }): Promise<AuthorizationCheck> => ensureAuthorization(ctx.app.oauth.accessTokens, ctx.principal)),
  }),
  assessments: assessmentsRouter,
  courseDefaults: courseDefaultsRouter,
  enforcement: enforcementRouter,
  policy: policyRouter,
  urlRules: urlRulesRouter,
  preExamSweep: preExamSweepRouter,
  examTools: examToolsRouter,
  passwords: passwordsRouter,
});
