import type { LmsCore } from '../context.js';
import { stableUuid } from '../ids.js';
import type { Course, ResourceLink, User } from '../state.js';
import { contextOpaqueId, type LaunchDescription, type MessageType } from './claims.js';
import type { PlacementConfig, ToolRegistration } from './registration.js';
import type { LaunchContext } from './roles.js';

/** The LMS surface a launch is opened from. */
export type LaunchPlacement = 'course_navigation' | 'account_navigation' | 'assessment' | 'link';

export interface LaunchOptions {
  /** User id or persona ("instructor", "student1", ...). */
  person: number | string;
  placement: LaunchPlacement;
  /** Course of a course launch; default the resource link's course, then the person's first current course (or, for an administrator, the first course). */
  courseId?: number;
  /** Account of an account launch; default the root account. */
  accountId?: number;
  /** For `assessment`: `classicquiz_{quizId}` or `newquiz:{courseId}:{assignmentId}`; the target becomes `{tool}/exb/launch/{contentId}`. */
  contentId?: string;
  /**
   * The `resource_link_id` (its UUID) of a resource link in the course, as a launch URL carries it. Works for every
   * course placement: the launch carries the link's id, and the link's custom parameters override the configured ones.
   */
  resourceLinkId?: string;
  /**
   * The launch URL's `placement` parameter, which anyone who writes a link can set: it becomes the placement claim and
   * selects whose placement custom fields apply. Default: the surface's own placement (none for links in a course).
   */
  placementParam?: string;
  /** Overrides the target link URI. */
  targetLinkUri?: string;
  /** The tool's nonce: given, `claims` and `idToken()` are complete without the authorization round trip. */
  nonce?: string;
  messageType?: MessageType;
  /** Replaces the configured custom fields, tool and placement (e.g. `{}` to act like a stale registration). */
  customFields?: Record<string, string>;
  /** Title of the resource link (assessment and link launches). */
  title?: string;
  /** Which name the login initiation uses for the deployment id; default the LMS's setting. */
  deploymentIdParam?: 'lti_deployment_id' | 'deployment_id' | 'both';
  /** Merged into the id_token claims; a key mapped to `undefined` is removed. */
  claims?: Record<string, unknown>;
}

const EXB_LAUNCH_PATH = /\/exb\/launch\/([^/?#]+)/;

function contentOfUrl(url: string): string | undefined {
  const match = URL.canParse(url) ? EXB_LAUNCH_PATH.exec(new URL(url).pathname)?.[1] : undefined;
  return match === undefined ? undefined : decodeURIComponent(match);
}

/** Resolves who launches what, where, with which configured custom fields: the input of the id_token claims. */
export class LaunchResolver {
  constructor(
    private readonly lms: LmsCore,
    private readonly registration: ToolRegistration,
  ) {}

  describe(options: LaunchOptions): LaunchDescription {
    const user = this.lms.state.requireUser(options.person);
    return options.placement === 'account_navigation' ? this.accountLaunch(user, options) : this.courseLaunch(user, options);
  }

  private surface(name: string): PlacementConfig {
    const placement = this.registration.placements.get(name);
    if (!placement) throw new Error(`The installed tool has no ${name} placement`);
    return placement;
  }

  /** The placement named in the launch URL (or the surface's own): the claim's value and its custom fields. */
  private placementOf(options: LaunchOptions, surface: PlacementConfig | undefined) {
    const name = options.placementParam ?? surface?.placement ?? null;
    const config = name === null ? undefined : this.registration.placements.get(name);
    const configured = options.customFields ?? { ...this.registration.customFields, ...(config?.customFields ?? {}) };
    return { name, config, configured };
  }

  private accountLaunch(user: User, options: LaunchOptions): LaunchDescription {
    const { state, baseUrl } = this.lms;
    if (options.resourceLinkId !== undefined) throw new Error('Resource links belong to courses, not to account launches');
    const account = state.accounts.get(options.accountId ?? state.rootAccount().id);
    if (!account) throw new Error(`The LMS has no account ${options.accountId}`);
    const surface = this.surface('account_navigation');
    const placement = this.placementOf(options, surface);
    const context: LaunchContext = { kind: 'account', account };
    return {
      user,
      context,
      placement: placement.name,
      messageType: options.messageType ?? surface.messageType,
      targetLinkUri: options.targetLinkUri ?? placement.config?.targetLinkUri ?? surface.targetLinkUri,
      resourceLink: { id: contextOpaqueId(context), title: account.name, description: null },
      customFields: placement.configured,
      linkCustom: null,
      returnUrl: `${baseUrl}/accounts/${account.id}`,
    };
  }

  private courseLaunch(user: User, options: LaunchOptions): LaunchDescription {
    const { baseUrl, tool } = this.lms;
    const link = options.resourceLinkId === undefined ? undefined : this.requireLink(options.resourceLinkId);
    const contentId = options.contentId ?? (link ? contentOfUrl(link.url) : undefined);
    const course = this.courseOf(user, options, link, contentId);
    const context: LaunchContext = { kind: 'course', course };

    if (options.placement === 'course_navigation') {
      const surface = this.surface('course_navigation');
      const placement = this.placementOf(options, surface);
      return {
        user,
        context,
        placement: placement.name,
        messageType: options.messageType ?? surface.messageType,
        targetLinkUri: options.targetLinkUri ?? placement.config?.targetLinkUri ?? surface.targetLinkUri,
        resourceLink: link
          ? { id: link.resourceLinkUuid, title: options.title ?? link.title ?? course.name, description: null }
          : { id: contextOpaqueId(context), title: course.name, description: null },
        customFields: placement.configured,
        linkCustom: link?.custom ?? null,
        returnUrl: `${baseUrl}/courses/${course.id}`,
      };
    }

    // A link inside the course (module item, assignment, rich content) to a tool URL: the tool's own custom fields,
    // plus those of a placement only when the link's URL names one.
    const placement = this.placementOf(options, undefined);
    const targetLinkUri =
      options.targetLinkUri ??
      link?.url ??
      (contentId ? `${tool.baseUrl}/exb/launch/${contentId}` : undefined) ??
      this.registration.targetLinkUri;
    const title = options.title ?? link?.title ?? (contentId ? this.contentTitle(contentId) : undefined) ?? this.registration.title;
    return {
      user,
      context,
      placement: placement.name,
      messageType: options.messageType ?? 'LtiResourceLinkRequest',
      targetLinkUri,
      // Without an explicit resource link, the link in the course is identified by its course and URL.
      resourceLink: { id: link?.resourceLinkUuid ?? stableUuid(`resource-link:${course.id}:${targetLinkUri}`), title, description: null },
      customFields: placement.configured,
      linkCustom: link?.custom ?? null,
      returnUrl: `${baseUrl}/courses/${course.id}/modules`,
    };
  }

  private requireLink(resourceLinkUuid: string): ResourceLink {
    for (const link of this.lms.state.resourceLinks.values()) {
      if (link.resourceLinkUuid === resourceLinkUuid && link.workflowState === 'active') return link;
    }
    throw new Error(`The LMS has no active resource link ${resourceLinkUuid}`);
  }

  private courseOf(user: User, options: LaunchOptions, link: ResourceLink | undefined, contentId: string | undefined): Course {
    const { state } = this.lms;
    let course: Course | undefined;
    if (options.courseId !== undefined) course = state.courses.get(options.courseId);
    else if (link) course = state.courses.get(link.courseId);
    else if (contentId) course = this.courseOfContent(contentId);
    course ??= options.courseId === undefined ? this.defaultCourse(user) : undefined;
    if (!course) throw new Error(`The LMS has no course for this launch (${options.courseId ?? contentId})`);
    if (link && link.courseId !== course.id) throw new Error(`Resource link ${link.resourceLinkUuid} belongs to another course`);
    return course;
  }

  private defaultCourse(user: User): Course {
    const state = this.lms.state;
    const enrolled = state
      .enrollmentsOf(user.id)
      .filter((enrollment) => enrollment.state === 'active')
      .map((enrollment) => state.courses.get(enrollment.courseId))
      .filter((course): course is Course => !!course && !course.concluded && !course.deleted && course.published);
    const course = enrolled[0] ?? [...state.courses.values()].find((c) => !c.deleted && c.published);
    if (!course) throw new Error(`No course to launch ${user.name} into`);
    return course;
  }

  private courseOfContent(contentId: string): Course | undefined {
    const classic = /^classicquiz_(\d+)$/.exec(contentId);
    if (classic) {
      const quiz = this.lms.state.quizzes.get(Number(classic[1]));
      return quiz ? this.lms.state.courses.get(quiz.courseId) : undefined;
    }
    const newQuiz = /^newquiz:(\d+):(\d+)$/.exec(contentId);
    return newQuiz ? this.lms.state.courses.get(Number(newQuiz[1])) : undefined;
  }

  private contentTitle(contentId: string): string | undefined {
    const classic = /^classicquiz_(\d+)$/.exec(contentId);
    if (classic) return this.lms.state.quizzes.get(Number(classic[1]))?.title;
    const newQuiz = /^newquiz:(\d+):(\d+)$/.exec(contentId);
    return newQuiz ? this.lms.state.assignments.get(Number(newQuiz[2]))?.name : undefined;
  }
}
