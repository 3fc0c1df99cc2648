import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ADMIN_TOOL_PRESET_ROUTE, ADMIN_TOOL_PRESETS_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import { adminRoute, fields, type AdminCaller } from '../../kit/admin-route.js';

type Presets = AdminCaller['toolPresets'];
type InputOf<K extends keyof Presets> = Parameters<Presets[K]>[0];

/**
 * The tool-preset routes of Document 2 (`/api/admin/tool-presets...`) as thin adapters over `admin.toolPresets.*`:
 * path and body become the procedure's input; every guard and rule runs in the procedure.
 */
export async function registerAdminPresetRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { guard, handle } = adminRoute(ctx);
  const params = (request: FastifyRequest) => request.params as Record<string, string>;
  const body = (request: FastifyRequest) => fields(request.body);
  const preset = (request: FastifyRequest) => ({ presetId: params(request).presetId! });
  const base = ADMIN_TOOL_PRESETS_ROUTE.path;

  app.get(base, handle((api) => api.toolPresets.list()));
  app.post(base, guard, handle((api, request) => api.toolPresets.create(body(request) as InputOf<'create'>)));
  app.put(ADMIN_TOOL_PRESET_ROUTE.path, guard, handle((api, request) => api.toolPresets.update({ ...body(request), ...preset(request) } as InputOf<'update'>)));
  app.delete(ADMIN_TOOL_PRESET_ROUTE.path, guard, handle((api, request) => api.toolPresets.delete(preset(request))));
  app.put(
    `${ADMIN_TOOL_PRESET_ROUTE.path}/courses/:courseId`,
    guard,
    handle((api, request) => api.toolPresets.assignCourse({ ...body(request), ...preset(request), courseId: params(request).courseId! } as InputOf<'assignCourse'>)),
  );
  app.put(`${ADMIN_TOOL_PRESET_ROUTE.path}/assignments`, guard, handle((api, request) => api.toolPresets.assign({ ...body(request), ...preset(request) } as InputOf<'assign'>)));
  app.post(
    `${ADMIN_TOOL_PRESET_ROUTE.path}/assignments/reconcile`,
    guard,
    handle((api, request) => api.toolPresets.reconcile({ ...body(request), ...preset(request) } as InputOf<'reconcile'>)),
  );
}
