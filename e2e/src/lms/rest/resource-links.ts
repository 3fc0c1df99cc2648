import { z } from 'zod';
import { notAuthorized } from '../authorization.js';
import type { LmsRuntime } from '../runtime.js';
import { LmsHttpError, apiErrors, jsonResponse } from '../errors.js';
import { paginate } from '../pagination.js';
import { booleanValue, type ParamObject } from '../params.js';
import { canManageResourceLinks } from '../permissions.js';
import { apiRoute, type RouteDef, type RouteRequest } from '../router.js';
import type { Course, ResourceLink } from '../state.js';
import { numericId, readableCourse } from './lookups.js';

/** The resource-link API lists 50 links a page unless asked otherwise. */
const LINKS_PER_PAGE = 50;

/** The API's validation answer: 422 with coded errors. */
function invalid(code: string, message: string): LmsHttpError {
  return new LmsHttpError(422, { errors: [{ code, message }] });
}

const customSchema = z.record(z.string(), z.string()).nullable().optional();
const titleSchema = z
  .union([z.string(), z.number()])
  .transform((value) => String(value))
  .nullable()
  .optional();

/** The request's fields, in the order the LMS checks them: custom parameters first, then the URL. */
function readFields(body: ParamObject): { url: string | undefined; title: string | null | undefined; custom: Record<string, string> | null | undefined } {
  const custom = customSchema.safeParse(body.custom);
  if (!custom.success) throw invalid('invalid_custom', "'custom' param must contain key/value pairs");
  const url = body.url;
  if (url !== undefined && url !== null && (typeof url !== 'string' || !URL.canParse(url))) {
    throw invalid('invalid_url', "'url' param must be a valid URL");
  }
  const title = titleSchema.safeParse(body.title);
  if (!title.success) throw invalid('invalid_title', "'title' param must be a string");
  return { url: typeof url === 'string' ? url : undefined, title: title.data, custom: custom.data };
}

/** A link launches the installed tool only when its URL is on the tool's host. */
function isToolUrl(lms: LmsRuntime, url: string): boolean {
  return URL.canParse(url) && new URL(url).host === new URL(lms.tool.baseUrl).host;
}

export function resourceLinkJson(lms: LmsRuntime, link: ResourceLink) {
  return {
    id: link.id,
    context_id: link.courseId,
    context_type: 'Course',
    context_external_tool_id: link.toolId,
    resource_type: 'rich_content',
    canvas_launch_url: `${lms.baseUrl}/courses/${link.courseId}/external_tools/retrieve?resource_link_lookup_uuid=${link.lookupUuid}`,
    resource_link_uuid: link.resourceLinkUuid,
    lookup_uuid: link.lookupUuid,
    title: link.title,
    url: link.url,
    custom: link.custom,
    lti_1_1_id: null,
    created_at: link.createdAt,
    updated_at: link.updatedAt,
    workflow_state: link.workflowState,
  };
}

/** The course of the route, which the caller must be allowed to add LTI links and assignments in. */
function managedCourse({ lms, auth, params }: RouteRequest): Course {
  const course = readableCourse(lms, auth!.user.id, params.course_id);
  if (!canManageResourceLinks(lms.state, auth!.user.id, course.id)) throw notAuthorized(lms);
  return course;
}

/** `:id` is the API id, `resource_link_uuid:<uuid>` or `lookup_uuid:<uuid>`; only links of the route's course. */
function linkOf(lms: LmsRuntime, course: Course, idParam: string | undefined, includeDeleted: boolean): ResourceLink {
  const value = idParam ?? '';
  const prefixed = /^(resource_link_uuid|lookup_uuid):(.+)$/.exec(value);
  const id = numericId(value);
  const link = [...lms.state.resourceLinks.values()].find((candidate) => {
    if (candidate.courseId !== course.id || (!includeDeleted && candidate.workflowState !== 'active')) return false;
    if (prefixed) return (prefixed[1] === 'lookup_uuid' ? candidate.lookupUuid : candidate.resourceLinkUuid) === prefixed[2];
    return candidate.id === id;
  });
  if (!link) throw apiErrors.notFound();
  return link;
}

/**
 * The resource-link API. Teachers, TAs, designers and administrators of the course may use it (it needs both
 * `manage_lti_add` and `manage_assignments_add`); what they store as `custom` reaches the tool in the signed custom
 * claim of every launch of the link.
 */
export function resourceLinkRoutes(): RouteDef[] {
  return [
    apiRoute('GET', '/api/v1/courses/:course_id/lti_resource_links', (req) => {
      const course = managedCourse(req);
      const includeDeleted = booleanValue(req.query.include_deleted) === true;
      const links = [...req.lms.state.resourceLinks.values()]
        .filter((link) => link.courseId === course.id && (includeDeleted || link.workflowState === 'active'))
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
      const page = paginate(req.lms.baseUrl, req.url, links, { defaultPerPage: LINKS_PER_PAGE });
      return jsonResponse(page.items.map((link) => resourceLinkJson(req.lms, link)), 200, { link: page.link });
    }),

    apiRoute('GET', '/api/v1/courses/:course_id/lti_resource_links/:id', (req) => {
      const course = managedCourse(req);
      const link = linkOf(req.lms, course, req.params.id, booleanValue(req.query.include_deleted) === true);
      return jsonResponse(resourceLinkJson(req.lms, link));
    }),

    apiRoute('POST', '/api/v1/courses/:course_id/lti_resource_links', (req) => {
      const { lms } = req;
      const course = managedCourse(req);
      const fields = readFields(req.body);
      if (fields.url === undefined || !isToolUrl(lms, fields.url)) throw invalid('invalid_url', 'No tool found for the provided URL');
      const link = lms.state.createResourceLink({
        courseId: course.id,
        url: fields.url,
        title: fields.title ?? null,
        custom: fields.custom ?? null,
        toolId: lms.tool.toolId,
        at: lms.clock.date().toISOString(),
      });
      return jsonResponse(resourceLinkJson(lms, link));
    }),

    apiRoute('PUT', '/api/v1/courses/:course_id/lti_resource_links/:id', (req) => {
      const { lms } = req;
      const course = managedCourse(req);
      const link = linkOf(lms, course, req.params.id, booleanValue(req.body.include_deleted ?? req.query.include_deleted) === true);
      const fields = readFields(req.body);
      if (fields.url !== undefined && !isToolUrl(lms, fields.url)) {
        throw invalid('url_tool_mismatch', "'url' param must match the tool associated with 'context_external_tool_id'");
      }
      // Every check passed: only now is anything written.
      if (fields.url !== undefined) link.url = fields.url;
      if (fields.custom !== undefined) link.custom = fields.custom;
      link.updatedAt = lms.clock.date().toISOString();
      return jsonResponse(resourceLinkJson(lms, link));
    }),
  ];
}
