import { expect } from 'vitest';
import type { AdminBed, AdminRequestOptions } from './harness.js';

/** A school tool as an administrator submits it: an exact launch page and one confirmed domain. */
export const CALCULATOR = {
  label: 'Scientific calculator',
  url: 'https://Calc.Example.edu/app#start',
  resourceRules: [{ match: 'domain', value: 'cdn.calc.example.edu', broadDomainConfirmed: true }],
} as const;

export const PRESETS = '/api/admin/tool-presets';

export interface PresetBody {
  id: string;
  name: string;
  description: string;
  tool: { label: string; url: string; resourceRules: { match: string; value: string }[] };
  assignedCourseIds: string[];
  assignedCourseCount: number;
  pendingAssignmentCount: number;
  failedAssignmentCount: number;
}

export interface RolloutBody {
  success: boolean;
  queuedCount?: number;
  preset: { id: string; pendingAssignmentCount: number; failedAssignmentCount?: number };
  rollout: { processed: number; applied: number; failed: number; pending: number };
}

export function presetHelpers(t: () => AdminBed) {
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, options: AdminRequestOptions = {}) =>
    t().request(method, url, { ...options, ...(body !== undefined ? { body } : {}) });

  return {
    call,
    async create(name = 'Calculator', tool: unknown = CALCULATOR, description = 'Allowed in every maths exam'): Promise<PresetBody> {
      const response = await call('POST', PRESETS, { name, description, tool });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { preset: PresetBody }).preset;
    },
    async list(): Promise<PresetBody[]> {
      const response = await call('GET', PRESETS);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { presets: PresetBody[] }).presets;
    },
    async find(id: string): Promise<PresetBody> {
      const preset = (await this.list()).find((candidate) => candidate.id === id);
      if (preset === undefined) throw new Error(`preset ${id} is not listed`);
      return preset;
    },
    async rollout(presetId: string, body: unknown, options: AdminRequestOptions = {}): Promise<RolloutBody> {
      const response = await call('PUT', `${PRESETS}/${presetId}/assignments`, body, options);
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as RolloutBody;
    },
    async reconcile(presetId: string, body: unknown = {}, options: AdminRequestOptions = {}): Promise<RolloutBody> {
      const response = await call('POST', `${PRESETS}/${presetId}/assignments/reconcile`, body, options);
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as RolloutBody;
    },
    /** A typed-client query, as the dashboard makes it. */
    async trpcQuery<T>(path: string, input: unknown): Promise<T> {
      const response = await t().app.inject({
        method: 'GET',
        url: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`,
        headers: { cookie: t().session.cookie },
      });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { result: { data: T } }).result.data;
    },
    /** The course catalog as stored. */
    async catalog(courseId: string) {
      return (await t().settings.loadCourseDefaults(courseId))?.externalTools ?? [];
    },
    async statuses(presetId: string): Promise<Record<string, string>> {
      const rows = await t().sql<{ course_id: string; status: string }>(
        'select course_id, status from admin_tool_preset_assignment where preset_id = ? order by course_id',
        [presetId],
      );
      return Object.fromEntries(rows.map((row) => [row.course_id, row.status]));
    },
  };
}
