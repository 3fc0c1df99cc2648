import type { JWTPayload } from 'jose';
import type { LmsCore } from '../context.js';
import { sha1Hex } from '../ids.js';
import type { User } from '../state.js';
import { contextRootAccount, ltiRoles, type LaunchContext } from './roles.js';
import { expandCustomFields } from './substitutions.js';
import type { ToolRegistration } from './registration.js';

export const LTI_CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';
export const DL_CLAIM = 'https://purl.imsglobal.org/spec/lti-dl/claim/';
export const PLACEMENT_CLAIM = 'https://www.instructure.com/placement';

export type MessageType = 'LtiResourceLinkRequest' | 'LtiDeepLinkingRequest';

/** Everything a launch message is built from, after the platform resolved who, where and what. */
export interface LaunchDescription {
  user: User;
  context: LaunchContext;
  /** The value of the placement claim: the launch URL's placement; `null` for links inside the course that name none. */
  placement: string | null;
  messageType: MessageType;
  targetLinkUri: string;
  resourceLink: { id: string; title: string; description: string | null } | null;
  /** The configured (unexpanded) custom fields: the tool's and its placement's. */
  customFields: Record<string, string>;
  /** The launched resource link's own custom parameters (unexpanded), which win over the configured fields. */
  linkCustom: Record<string, string> | null;
  returnUrl: string;
}

/** The course's or account's `lti_context_id`, the `context.id` of its launches. */
export function contextOpaqueId(context: LaunchContext): string {
  return context.kind === 'course' ? context.course.ltiContextId : context.account.ltiContextId;
}

/**
 * The id_token payload as the LMS builds it at login initiation (the tool's nonce is merged in at authorization):
 * single-string `aud` and `azp`, one-hour expiry, LTI claims under their full names, the custom claim expanded, and
 * name, email and LIS claims as the tool's privacy level allows. `sub`, `roles`, `context` and `resource_link` come
 * from the LMS's own records; the custom claim and the placement claim may carry what a link's author wrote.
 */
export function buildLaunchClaims(lms: LmsCore, registration: ToolRegistration, launch: LaunchDescription): JWTPayload {
  const { user, context } = launch;
  const now = lms.clock.seconds();
  const root = contextRootAccount(lms.state, context);
  const privacy = registration.privacyLevel;
  const claims: JWTPayload = {
    iss: lms.issuer,
    aud: lms.tool.clientId,
    azp: lms.tool.clientId,
    iat: now,
    exp: now + 3600,
    sub: user.ltiId,
    [`${LTI_CLAIM}message_type`]: launch.messageType,
    [`${LTI_CLAIM}version`]: '1.3.0',
    [`${LTI_CLAIM}deployment_id`]: lms.tool.deploymentId,
    [`${LTI_CLAIM}target_link_uri`]: launch.targetLinkUri,
    [`${LTI_CLAIM}context`]:
      context.kind === 'course'
        ? {
            id: contextOpaqueId(context),
            label: context.course.courseCode,
            title: context.course.name,
            type: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'],
          }
        : { id: contextOpaqueId(context), title: context.account.name, type: ['Account'] },
    [`${LTI_CLAIM}tool_platform`]: {
      guid: root.ltiGuid,
      name: root.name,
      version: 'cloud',
      product_family_code: 'canvas',
    },
    [`${LTI_CLAIM}launch_presentation`]: { document_target: 'iframe', return_url: launch.returnUrl, locale: user.locale },
    locale: user.locale,
    [`${LTI_CLAIM}roles`]: ltiRoles(lms.state, user, context),
    [`${LTI_CLAIM}custom`]: expandCustomFields(launch.customFields, { lms, user, context }, launch.linkCustom),
    [`${LTI_CLAIM}lti11_legacy_user_id`]: sha1Hex(`lti11-user:${user.id}`),
    [PLACEMENT_CLAIM]: launch.placement,
  };
  if (launch.messageType === 'LtiResourceLinkRequest' && launch.resourceLink) {
    claims[`${LTI_CLAIM}resource_link`] = launch.resourceLink;
  }
  if (launch.messageType === 'LtiDeepLinkingRequest') {
    const contextPath = context.kind === 'course' ? `/courses/${context.course.id}` : `/accounts/${context.account.id}`;
    claims[`${DL_CLAIM}deep_linking_settings`] = {
      deep_link_return_url: `${lms.baseUrl}${contextPath}/deep_linking_response`,
      accept_types: ['ltiResourceLink'],
      accept_presentation_document_targets: ['iframe', 'window'],
      accept_media_types: 'application/vnd.ims.lti.v1.ltilink',
      auto_create: true,
      accept_multiple: false,
    };
  }
  if (privacy === 'name_only' || privacy === 'public') {
    const [given, ...family] = user.name.split(' ');
    claims.name = user.name;
    claims.given_name = given;
    claims.family_name = family.join(' ');
    claims[`${LTI_CLAIM}lis`] = {
      person_sourcedid: user.sisUserId ?? '$Person.sourcedId',
      course_offering_sourcedid:
        context.kind === 'course' && context.course.sisCourseId ? context.course.sisCourseId : '$CourseSection.sourcedId',
    };
  }
  if ((privacy === 'email_only' || privacy === 'public') && user.email) claims.email = user.email;
  if (privacy === 'public') claims.picture = `${lms.baseUrl}/images/messages/avatar-50.png`;
  return claims;
}
