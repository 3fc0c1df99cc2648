import { z } from 'zod';
import { isLmsId } from './content-id.js';
import { normalizeExternalTool, type ExternalToolConfig, type PolicyPath } from './exb-policy/index.js';
import { ErrorCodes } from './error-codes.js';

/**
 * School tool presets (Document 2, "Preset" and Limits): what an administrator submits, checked by the same rules the
 * dashboard applies before it submits and the service applies when it stores. The tool is checked by the shared
 * policy module, exactly as an instructor's course tool is; only the error code differs (`INVALID_ADMIN_TOOL_PRESET`).
 */

export const ADMIN_TOOL_PRESET_LIMITS = {
  /** Presets one root account may keep. */
  perAccount: 32,
  nameLength: 80,
  descriptionLength: 240,
  /** Connected courses one bulk rollout may target. */
  rolloutCourses: 2_000,
} as const;

export const ASSIGNMENT_STATUSES = ['pending', 'applied', 'failed'] as const;
export const assignmentStatusSchema = z.enum(ASSIGNMENT_STATUSES);
export type AssignmentStatus = z.infer<typeof assignmentStatusSchema>;

/** A preset's tool as stored: the canonical tool without the per-course bookkeeping (id, switch, origin). */
export type PresetTool = Pick<ExternalToolConfig, 'label' | 'url' | 'resourceRules'>;

export interface PresetDefinition {
  readonly name: string;
  readonly description: string;
  readonly tool: PresetTool;
}

export interface PresetRefusal {
  readonly errorCode: typeof ErrorCodes.INVALID_ADMIN_TOOL_PRESET;
  readonly message: string;
  /** Where in the submitted body: `['name']`, `['tool', 'resourceRules', 0, 'value']`, ... */
  readonly path: PolicyPath;
}

export type PresetResult = { readonly ok: true; readonly value: PresetDefinition } | { readonly ok: false; readonly error: PresetRefusal };

const refuse = (message: string, path: PolicyPath): PresetResult => ({ ok: false, error: { errorCode: ErrorCodes.INVALID_ADMIN_TOOL_PRESET, message, path } });

/** Visible text in canonical form: NFC, trimmed, no control or text-direction characters. */
function text(value: unknown, max: number, name: string, path: PolicyPath): { ok: true; value: string } | { ok: false; result: PresetResult } {
  if (typeof value !== 'string') return { ok: false, result: refuse(`${name} must be text`, path) };
  const normalized = value.normalize('NFC').trim();
  if (normalized.length > max) return { ok: false, result: refuse(`${name} is longer than ${max} characters`, path) };
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(normalized)) {
    return { ok: false, result: refuse(`${name} contains control or text-direction characters`, path) };
  }
  return { ok: true, value: normalized };
}

export interface PresetNormalizationOptions {
  /** The service base URL; video links become its player route, as for instructor tools. */
  readonly baseUrl: string;
}

/**
 * A submitted preset (`name`, `description`, `tool`) in canonical form, or the first problem with its path. The tool's
 * `id`, `enabled`, `managedByAdmin` and `presetId` are not the administrator's to set: rollout derives them per course.
 */
export function normalizePresetInput(input: unknown, options: PresetNormalizationOptions): PresetResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return refuse('Expected a preset with a name and a tool', []);
  const body = input as Record<string, unknown>;
  const name = text(body.name, ADMIN_TOOL_PRESET_LIMITS.nameLength, 'Name', ['name']);
  if (!name.ok) return name.result;
  if (name.value === '') return refuse('Name is required', ['name']);
  const description = text(body.description ?? '', ADMIN_TOOL_PRESET_LIMITS.descriptionLength, 'Description', ['description']);
  if (!description.ok) return description.result;
  if (typeof body.tool !== 'object' || body.tool === null || Array.isArray(body.tool)) return refuse('A tool is required', ['tool']);
  const { id: _id, enabled: _enabled, managedByAdmin: _managed, presetId: _preset, ...submitted } = body.tool as Record<string, unknown>;
  const tool = normalizeExternalTool(submitted, { baseUrl: options.baseUrl, assignId: () => 'preset' }, ['tool']);
  if (!tool.ok) return refuse(tool.error.message, tool.error.path);
  const { label, url, resourceRules } = tool.value;
  return { ok: true, value: { name: name.value, description: description.value, tool: { label, url, resourceRules } } };
}

/** The course tool id a preset's tool has in every course catalog it is rolled out to. */
export function presetToolId(presetId: string): string {
  return `preset-${presetId.toLowerCase()}`;
}

/** `PUT .../assignments`: `all`, or the listed courses (numeric ids, at most 2,000; more is the contract's 409). */
export const bulkAssignmentInputSchema = z.object({
  assigned: z.boolean(),
  all: z.boolean(),
  courseIds: z.array(z.union([z.string().max(64), z.number()])).max(100_000).optional(),
});
export type BulkAssignmentInput = z.infer<typeof bulkAssignmentInputSchema>;

/** Canonical course ids of a bulk request, or `null` when one of them is not a numeric LMS id. */
export function canonicalCourseIds(courseIds: readonly (string | number)[]): string[] | null {
  const ids = courseIds.map((id) => (typeof id === 'number' ? String(id) : id.trim()));
  return ids.every(isLmsId) ? [...new Set(ids)] : null;
}
