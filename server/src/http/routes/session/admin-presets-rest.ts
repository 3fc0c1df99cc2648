import type { FastifyInstance, FastifyRequest } from 'fastify';
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
  const base = '/api/admin/tool-presets';

  app.get(base, handle((api) => api.toolPresets.list()));
  app.post(base, guard, handle((api, request) => api.toolPresets.create(body(request) as InputOf<'create'>)));
  app.put(`${base}/:presetId`, guard, handle((api, request) => api.toolPresets.update({ ...body(request), ...preset(request) } as InputOf<'update'>)));
  app.delete(`${base}/:presetId`, guard, handle((api, request) => api.toolPresets.delete(preset(request))));
  app.put(
    `${base}/:presetId/courses/:courseId`,
    guard,
    handle((api, request) => api.toolPresets.assignCourse({ ...body(request), ...preset(request), courseId: params(request).courseId! } as InputOf<'assignCourse'>)),
  );
  app.put(`${base}/:presetId/assignments`, guard, handle((api, request) => api.toolPresets.assign({ ...body(request), ...preset(request) } as InputOf<'assign'>)));
  app.post(
    `${base}/:presetId/assignments/reconcile`,
    guard,
    handle((api, request) => api.toolPresets.reconcile({ ...body(request), ...preset(request) } as InputOf<'reconcile'>)),
  );
}
