import { describe, expect, it } from 'vitest';
import { LmsLtiConfigurationError } from '../../src/lti/errors.js';
import type { LaunchClaims } from '../../src/lti/id-token.js';
import { resolveLaunchOutcome } from '../../src/lti/roles.js';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';
const ADMIN = `${LIS}institution/person#Administrator`;

function courseClaims(custom: Record<string, unknown>, roles: string[] = []): LaunchClaims {
  return {
    issuer: 'https://lms.example.test',
    subject: 'sub-1',
    deploymentId: '1:abc',
    messageType: 'LtiResourceLinkRequest',
    target: { kind: 'lti', path: '/lti/launch' },
    roles,
    custom: {
      lms_user_id: '2',
      lms_membership_roles: '',
      lms_lis_membership_roles: '',
      exb_launch_surface: 'course',
      lms_course_id: '101',
      lms_membership_permissions: '',
      ...custom,
    },
    name: 'Ian Instructor',
    contextTitle: 'Biology 101',
  };
}

function adminClaims(custom: Record<string, unknown>, roles: string[] = [ADMIN]): LaunchClaims {
  return {
    ...courseClaims({}, roles),
    custom: {
      lms_user_id: '1',
      exb_launch_surface: 'account_admin',
      lms_account_id: '1',
      lms_root_account_id: '1',
      lms_user_is_root_account_admin: true,
      ...custom,
    },
    contextTitle: 'Example University',
  };
}

const kindOf = (claims: LaunchClaims) => {
  const outcome = resolveLaunchOutcome(claims);
  return outcome.kind === 'principal' ? outcome.principal.kind : outcome.kind;
};

describe('role mapping', () => {
  it.each([
    ['TeacherEnrollment', 'instructor'],
    ['DesignerEnrollment', 'instructor'],
    ['StudentEnrollment', 'student'],
    ['TeacherEnrollment,StudentEnrollment', 'instructor'],
    ['ObserverEnrollment', 'not-authorized'],
    ['TaEnrollment', 'not-authorized'],
    ['Account Admin', 'not-authorized'],
    ['', 'not-authorized'],
  ])('course membership %j gives %s', (roles, kind) => {
    expect(kindOf(courseClaims({ lms_membership_roles: roles }))).toBe(kind);
  });

  it('gives instructor from the Instructor context role (roles claim or LIS custom field)', () => {
    expect(kindOf(courseClaims({}, [`${LIS}membership#Instructor`]))).toBe('instructor');
    expect(kindOf(courseClaims({ lms_lis_membership_roles: `${LIS}membership#Instructor` }))).toBe('instructor');
    expect(kindOf(courseClaims({}, [`${LIS}institution/person#Instructor`]))).toBe('not-authorized');
    expect(kindOf(courseClaims({}, [`${LIS}membership#Learner`]))).toBe('not-authorized');
  });

  it('builds the course principal from signed claims', () => {
    expect(resolveLaunchOutcome(courseClaims({ lms_membership_roles: 'StudentEnrollment' }))).toEqual({
      kind: 'principal',
      principal: {
        kind: 'student',
        lmsUserId: '2',
        ltiSubject: 'sub-1',
        issuer: 'https://lms.example.test',
        deploymentId: '1:abc',
        courseId: '101',
        name: 'Ian Instructor',
        courseName: 'Biology 101',
      },
    });
  });

  it('gives a root-account administrator only with the role claim, the root-admin flag and the account surface', () => {
    expect(resolveLaunchOutcome(adminClaims({}))).toMatchObject({ kind: 'principal', principal: { kind: 'admin', accountId: '1', lmsUserId: '1' } });
    expect(kindOf(adminClaims({ lms_user_is_root_account_admin: 'true' }))).toBe('admin');
    expect(kindOf(adminClaims({}, [`${LIS}system/person#SysAdmin`]))).toBe('admin');
    expect(kindOf(adminClaims({ lms_user_is_root_account_admin: false }))).toBe('not-authorized');
    expect(kindOf(adminClaims({ lms_user_is_root_account_admin: 'false' }))).toBe('not-authorized');
    expect(kindOf(adminClaims({}, [`${LIS}system/person#User`]))).toBe('not-authorized');
    // The flag on a course launch proves nothing.
    expect(kindOf(courseClaims({ lms_user_is_root_account_admin: true }, [ADMIN]))).toBe('not-authorized');
  });

  it('answers deep linking before anything else', () => {
    expect(kindOf({ ...courseClaims({ exb_launch_surface: undefined }), messageType: 'LtiDeepLinkingRequest' })).toBe('deep-linking');
  });

  it('does not authorize a launch without a user', () => {
    expect(kindOf({ ...courseClaims({ lms_membership_roles: 'TeacherEnrollment' }), subject: undefined })).toBe('not-authorized');
  });

  it.each([
    ['lms_user_id', '$Lms.user.id'],
    ['lms_course_id', '$Lms.course.id'],
    ['lms_membership_roles', '$Lms.membership.roles'],
    ['lms_lis_membership_roles', '$com.Lms.membership.roles'],
    ['lms_membership_permissions', '$Lms.membership.permissions<>'],
  ])('refuses an unexpanded course field %s as a stale registration', (field, value) => {
    const error = (() => {
      try {
        resolveLaunchOutcome(courseClaims({ lms_membership_roles: 'TeacherEnrollment', [field]: value }));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(LmsLtiConfigurationError);
    expect((error as LmsLtiConfigurationError).status).toBe(400);
    expect((error as LmsLtiConfigurationError).details.join(' ')).toContain(field);
  });

  it.each(['lms_user_id', 'lms_root_account_id', 'lms_account_id', 'lms_user_is_root_account_admin'])(
    'refuses an unexpanded or missing account field %s',
    (field) => {
      expect(() => resolveLaunchOutcome(adminClaims({ [field]: `$Lms.${field}` }))).toThrow(LmsLtiConfigurationError);
      expect(() => resolveLaunchOutcome(adminClaims({ [field]: undefined }))).toThrow(LmsLtiConfigurationError);
    },
  );

  it('refuses a launch without the tool’s custom fields at all', () => {
    expect(() => resolveLaunchOutcome({ ...courseClaims({}), custom: {} })).toThrow(LmsLtiConfigurationError);
  });

  it('refuses a non-numeric user or course id as a configuration error', () => {
    expect(() => resolveLaunchOutcome(courseClaims({ lms_user_id: 'abc', lms_membership_roles: 'TeacherEnrollment' }))).toThrow(
      LmsLtiConfigurationError,
    );
  });
});
