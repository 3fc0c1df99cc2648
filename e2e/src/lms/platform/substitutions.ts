import type { LmsCore } from '../context.js';
import { globalUserId } from '../oauth/provider.js';
import { accountPermissions, coursePermissions, effectiveEnrollmentState, isRootAccountAdmin } from '../permissions.js';
import type { User } from '../state.js';
import {
  contextAccountId,
  contextRootAccount,
  ltiRoles,
  membershipLisRoles,
  membershipRoleNames,
  type LaunchContext,
} from './roles.js';

export interface SubstitutionEnvironment {
  lms: LmsCore;
  user: User | null;
  context: LaunchContext;
}

type Value = string | number | boolean;

interface Variable {
  /** When the guard fails the LMS sends the variable's registered name back literally. */
  guard(env: SubstitutionEnvironment): boolean;
  expand(env: SubstitutionEnvironment, args: string[]): Value;
}

const always = () => true;
const hasUser = (env: SubstitutionEnvironment) => env.user !== null;
const inCourse = (env: SubstitutionEnvironment) => env.context.kind === 'course';

function permissionsInContext(env: SubstitutionEnvironment): Set<string> {
  const { lms, user, context } = env;
  if (!user) return new Set();
  return context.kind === 'course'
    ? coursePermissions(lms.state, user.id, context.course.id)
    : accountPermissions(lms.state, user.id, context.account.id, lms.settings);
}

/**
 * The substitution variables this LMS registers, under Canvas's own names and with their meaning
 * (`lib/lti/variable_expander.rb`, `register_expansion`). Lookup is case-sensitive; anything not registered here,
 * including the contract's `$Lms...` placeholders, comes back literally, as Canvas's `expand_variables!` leaves a value it
 * cannot find.
 */
const VARIABLES: Record<string, Variable> = {
  '$Canvas.user.id': { guard: hasUser, expand: (env) => env.user!.id },
  '$Canvas.user.globalId': { guard: hasUser, expand: (env) => globalUserId(env.user!.id) },
  '$Canvas.user.isRootAccountAdmin': {
    guard: hasUser,
    expand: (env) => isRootAccountAdmin(env.lms.state, env.user!.id, contextRootAccount(env.lms.state, env.context).id),
  },
  '$Canvas.user.adminableAccounts': {
    guard: hasUser,
    expand: (env) => {
      const ids = new Set<number>();
      for (const membership of env.lms.state.adminMembershipsOf(env.user!.id)) {
        for (const id of env.lms.state.accountSubtree(membership.accountId)) ids.add(id);
      }
      return [...ids].sort((a, b) => a - b).join(',');
    },
  },
  '$Canvas.membership.roles': {
    guard: hasUser,
    expand: (env) => membershipRoleNames(env.lms.state, env.user!, env.context),
  },
  '$com.Instructure.membership.roles': {
    guard: hasUser,
    expand: (env) => membershipLisRoles(env.lms.state, env.user!, env.context),
  },
  '$com.instructure.User.allRoles': {
    guard: always,
    expand: (env) => ltiRoles(env.lms.state, env.user, env.context).join(','),
  },
  '$Canvas.membership.permissions<>': {
    guard: hasUser,
    expand: (env, args) => {
      const held = permissionsInContext(env);
      return args.filter((name) => held.has(name)).join(',');
    },
  },
  '$Canvas.course.id': { guard: inCourse, expand: (env) => (env.context.kind === 'course' ? env.context.course.id : '') },
  '$Canvas.course.name': { guard: inCourse, expand: (env) => (env.context.kind === 'course' ? env.context.course.name : '') },
  '$Canvas.account.id': { guard: always, expand: (env) => contextAccountId(env.context) },
  '$Canvas.account.name': {
    guard: always,
    expand: (env) => env.lms.state.accounts.get(contextAccountId(env.context))?.name ?? '',
  },
  '$Canvas.rootAccount.id': { guard: always, expand: (env) => contextRootAccount(env.lms.state, env.context).id },
  '$Canvas.api.domain': { guard: always, expand: (env) => new URL(env.lms.baseUrl).host },
  '$Canvas.api.baseUrl': { guard: always, expand: (env) => env.lms.baseUrl },
  '$Canvas.enrollment.enrollmentState': {
    guard: inCourse,
    expand: (env) => {
      if (env.context.kind !== 'course' || !env.user) return '';
      const course = env.context.course;
      const states = env.lms.state.enrollmentsOf(env.user.id, course.id).map((e) => effectiveEnrollmentState(e, course));
      if (states.includes('active')) return 'active';
      return states.length > 0 ? 'inactive' : '';
    },
  },
  '$Person.sourcedId': { guard: (env) => env.user?.sisUserId != null, expand: (env) => env.user!.sisUserId! },
  '$CourseSection.sourcedId': {
    guard: (env) => env.context.kind === 'course' && env.context.course.sisCourseId !== null,
    expand: (env) => (env.context.kind === 'course' ? env.context.course.sisCourseId! : ''),
  },
};

export function isRegisteredVariable(name: string): boolean {
  return name in VARIABLES;
}

/** Expands one value: `$Name`, `$Name<args>` or embedded `${Name}`; anything else is returned unchanged. */
export function expandValue(value: string, env: SubstitutionEnvironment): Value {
  const exact = VARIABLES[value];
  if (exact) return exact.guard(env) ? exact.expand(env, []) : value;

  const parameterised = /^(\$[\w.]+)<(.*)>$/.exec(value);
  if (parameterised) {
    const registered = `${parameterised[1]}<>`;
    const variable = VARIABLES[registered];
    if (variable) {
      const args = parameterised[2]!.split(',').map((arg) => arg.trim()).filter(Boolean);
      // A failed guard echoes the registered name, not the caller's arguments.
      return variable.guard(env) ? variable.expand(env, args) : registered;
    }
    return value;
  }

  if (value.includes('${')) {
    return value.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
      const variable = VARIABLES[`$${name}`];
      return variable && variable.guard(env) ? String(variable.expand(env, [])) : whole;
    });
  }
  return value;
}

/**
 * Configured custom field names arrive normalised: non-word characters become `_`, then lower case
 * (`app/models/context_external_tool.rb#set_custom_fields`).
 */
export function normaliseCustomKey(key: string): string {
  return key.replace(/\W/g, '_').toLowerCase();
}

/**
 * The custom claim. The configured fields (tool ∪ placement) have their keys normalised; a resource link's own custom
 * parameters are merged over them with keys as their author gave them, so a link can replace any configured value;
 * then every value is expanded, numbers sent as strings, booleans kept.
 */
export function expandCustomFields(
  configured: Record<string, string>,
  env: SubstitutionEnvironment,
  linkCustom: Record<string, string> | null = null,
): Record<string, string | boolean> {
  // A map, so an author's key such as `__proto__` stays an ordinary key.
  const unexpanded = new Map<string, string>();
  for (const [key, value] of Object.entries(configured)) unexpanded.set(normaliseCustomKey(key), value);
  for (const [key, value] of Object.entries(linkCustom ?? {})) unexpanded.set(key, value);
  return Object.fromEntries(
    [...unexpanded].map(([key, raw]) => {
      const expanded = expandValue(raw, env);
      return [key, typeof expanded === 'number' ? String(expanded) : expanded];
    }),
  );
}
