import { examBrowserRoutes } from './exam-browser/pages.js';
import { oauthRoutes } from './oauth/routes.js';
import { accountPageRoutes } from './pages/account-pages.js';
import { coursePageRoutes } from './pages/course-pages.js';
import { testbedRoutes } from './pages/testbed.js';
import { toolLaunchRoutes } from './pages/tool-launch.js';
import { platformRoutes, postMessageForwardingRoutes } from './platform/routes.js';
import { accountRoutes } from './rest/accounts.js';
import { assignmentRoutes } from './rest/assignments.js';
import { courseRoutes } from './rest/courses.js';
import { enrollmentRoutes } from './rest/enrollments.js';
import { newQuizRoutes } from './rest/new-quizzes.js';
import { quizRoutes } from './rest/quizzes.js';
import { resourceLinkRoutes } from './rest/resource-links.js';
import { sessionTokenRoutes } from './rest/session-token.js';
import { submissionRoutes } from './rest/submissions.js';
import type { RouteDef } from './router.js';

/** Every route of the LMS. Earlier entries win where two patterns match the same path. */
export function allRoutes(): RouteDef[] {
  return [
    ...courseRoutes(),
    ...enrollmentRoutes(),
    ...submissionRoutes(),
    ...quizRoutes(),
    ...assignmentRoutes(),
    ...newQuizRoutes(),
    ...resourceLinkRoutes(),
    ...accountRoutes(),
    ...sessionTokenRoutes(),
    ...oauthRoutes(),
    ...platformRoutes(),
    ...postMessageForwardingRoutes(),
    ...testbedRoutes(),
    ...examBrowserRoutes(),
    ...toolLaunchRoutes(),
    ...coursePageRoutes(),
    ...accountPageRoutes(),
  ];
}
