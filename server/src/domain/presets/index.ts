import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AuditLog } from '../../audit/audit-log.js';
import type { CourseConnections } from '../connected-courses/course-connections.js';
import type { PresetCounts, PresetCountSource } from '../connected-courses/summary-hooks.js';
import type { ManagementServices } from '../management-services.js';
import { AssignmentStore } from './assignment-store.js';
import { CourseSync } from './course-sync.js';
import { PresetService } from './preset-service.js';
import { PresetStore } from './preset-store.js';
import { PresetReconciler } from './reconciler.js';

export { deleteCourseAssignments } from './assignment-store.js';

/** The tool-preset services of one application, and the summary's hooks into them. */
export interface PresetServices {
  readonly service: PresetService;
  readonly reconciler: PresetReconciler;
  readonly counts: PresetCountSource;
}

export interface PresetServicesOptions {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly audit: AuditLog;
  readonly connections: CourseConnections;
  readonly management: ManagementServices;
  readonly baseUrl: string;
  readonly batchSize: number;
}

export function createPresetServices(options: PresetServicesOptions): PresetServices {
  const { orm, logger, connections, management } = options;
  const presets = new PresetStore(orm);
  const assignments = new AssignmentStore(orm);
  const sync = new CourseSync({ orm, presets, assignments, connections, settings: management.settings, locks: management.locks, logger });
  const reconciler = new PresetReconciler({ orm, assignments, sync, logger });
  return {
    service: new PresetService({ presets, assignments, connections, sync, reconciler, audit: options.audit, baseUrl: options.baseUrl, batchSize: options.batchSize }),
    reconciler,
    counts: { counts: (accountId: string): Promise<PresetCounts> => presets.counts(accountId) },
  };
}
