import { principalProcedure, router } from './init.js';
import { adminRouter } from './routers/admin/index.js';
import { instructorRouter } from './routers/instructor/index.js';

/** The typed API the React client calls. Management procedures join here as sub-routers. */
export const appRouter = router({
  session: router({
    /** Who the session belongs to, as the views show it; identifiers only, nothing secret. */
    whoami: principalProcedure('instructor', 'student', 'admin').query(({ ctx }) => ctx.principal),
  }),
  instructor: instructorRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
