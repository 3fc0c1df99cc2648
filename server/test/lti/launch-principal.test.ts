import { describe, expect, it } from 'vitest';
import { resolveLaunchOutcome } from '../../src/lti/launch-principal.js';
import { LmsLtiConfigurationError } from '../../src/lti/errors.js';
import type { LaunchClaims } from '../../src/lti/id-token.js';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';
const ADMIN = `${LIS}institution/person#Administrator`;
const TEACHER = `${LIS}membership#Instructor`;
const TA = `${LIS}membership/Instructor#TeachingAssistant`;
const DESIGNER = `${LIS}membership#ContentDeveloper`;
const LEARNER = `${LIS}membership#Learner`;
const MENTOR = `${LIS}membership#Mentor`;
const COURSE_CONTEXT = { id: 'ctx-course-101', types: [`${LIS}course#CourseOffering`], title: 'Biology 101' };
const ACCOUNT_CONTEXT = { id: 'ctx-account-1', types: ['Account'], title: 'Example University' };

function courseClaims(custom: Record<string, unknown>, roles: string[] = [TEACHER]): LaunchClaims {
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
    context: COURSE_CONTEXT,
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
    context: ACCOUNT_CONTEXT,
  };
}

const kindOf = (claims: LaunchClaims) => {
  const outcome = resolveLaunchOutcome(claims);
  return outcome.kind === 'principal' ? outcome.principal.kind : outcome.kind;
};

describe('launch principal: roles from signed claims only', () => {
  it.each([
    [[TEACHER], 'instructor'],
    [[TEACHER, TA], 'instructor'],
    [[DESIGNER], 'instructor'],
    [[LEARNER], 'student'],
    [[TEACHER, LEARNER], 'instructor'],
    [[MENTOR], 'not-authorized'],
    [[ADMIN], 'not-authorized'],
    [[`${LIS}institution/person#Instructor`], 'not-authorized'],
    [[], 'not-authorized'],
  ])('signed roles %j give %s', (roles, kind) => {
    expect(kindOf(courseClaims({}, roles))).toBe(kind);
  });

  it.each([
    [[TEACHER], 'teacher'],
    [[TEACHER, TA], 'teaching-assistant'],
    [[DESIGNER], 'designer'],
    [[TEACHER, DESIGNER], 'teacher'],
    [[TEACHER, LEARNER], 'teacher'],
  ])('signed roles %j greet the instructor as %s', (roles, role) => {
    const outcome = resolveLaunchOutcome(courseClaims({}, roles));
    expect(outcome).toMatchObject({ kind: 'principal', principal: { kind: 'instructor', courseRole: role } });
  });

  it('takes the greeting from the signed roles, never from custom fields, and gives students none', () => {
    const forged = courseClaims({ lms_membership_roles: 'TaEnrollment', lms_lis_membership_roles: TA }, [TEACHER]);
    expect(resolveLaunchOutcome(forged)).toMatchObject({ principal: { courseRole: 'teacher' } });
    const student = resolveLaunchOutcome(courseClaims({}, [LEARNER]));
    expect(student.kind === 'principal' && 'courseRole' in student.principal).toBe(false);
  });

  it('never widens a role from custom fields: a learner stays a learner whatever the link says', () => {
    for (const forged of [
      { lms_membership_roles: 'TeacherEnrollment' },
      { lms_membership_roles: 'DesignerEnrollment,TeacherEnrollment' },
      { lms_lis_membership_roles: TEACHER },
    ]) {
      expect(kindOf(courseClaims(forged, [LEARNER]))).toBe('student');
      expect(kindOf(courseClaims(forged, [MENTOR]))).toBe('not-authorized');
      expect(kindOf(courseClaims(forged, []))).toBe('not-authorized');
    }
  });

  it('lets custom fields narrow a signed set: a teacher also enrolled as a student, on a student link, is a student', () => {
    expect(kindOf(courseClaims({ lms_membership_roles: 'StudentEnrollment' }, [TEACHER, LEARNER]))).toBe('student');
    expect(kindOf(courseClaims({ lms_membership_roles: 'TeacherEnrollment' }, [TEACHER, LEARNER]))).toBe('instructor');
    // Narrowing to something outside the signed set changes nothing.
    expect(kindOf(courseClaims({ lms_membership_roles: 'StudentEnrollment' }, [TEACHER]))).toBe('instructor');
  });

  it('builds the course principal with the signed context id and the claimed numeric ids', () => {
    expect(resolveLaunchOutcome(courseClaims({}, [LEARNER]))).toEqual({
      kind: 'principal',
      principal: {
        kind: 'student',
        lmsUserId: '2',
        ltiSubject: 'sub-1',
        issuer: 'https://lms.example.test',
        deploymentId: '1:abc',
        ltiContextId: 'ctx-course-101',
        courseId: '101',
        name: 'Ian Instructor',
        courseName: 'Biology 101',
      },
    });
  });

  it('gives a course principal only in a course context', () => {
    expect(kindOf({ ...courseClaims({}), context: undefined })).toBe('not-authorized');
    expect(kindOf({ ...courseClaims({}), context: { ...COURSE_CONTEXT, types: [`${LIS}course#Group`] } })).toBe('not-authorized');
    // The custom surface must agree with the signed context.
    expect(kindOf(courseClaims({ exb_launch_surface: 'account_admin' }))).toBe('not-authorized');
  });
});

describe('launch principal: root-account administrators', () => {
  it('only from an account context with a signed administrator role and the root-admin flag', () => {
    expect(resolveLaunchOutcome(adminClaims({}))).toMatchObject({
      kind: 'principal',
      principal: { kind: 'admin', accountId: '1', lmsUserId: '1', ltiContextId: 'ctx-account-1', accountName: 'Example University' },
    });
    expect(kindOf(adminClaims({ lms_user_is_root_account_admin: 'true' }))).toBe('admin');
    expect(kindOf(adminClaims({}, [`${LIS}system/person#SysAdmin`]))).toBe('admin');
    expect(kindOf(adminClaims({ lms_user_is_root_account_admin: false }))).toBe('not-authorized');
    expect(kindOf(adminClaims({ lms_user_is_root_account_admin: 'false' }))).toBe('not-authorized');
    expect(kindOf(adminClaims({}, [`${LIS}system/person#User`]))).toBe('not-authorized');
  });

  it('never from a course context, whatever the custom fields claim', () => {
    const forged = { exb_launch_surface: 'account_admin', lms_user_is_root_account_admin: true, lms_root_account_id: '1', lms_account_id: '1' };
    expect(kindOf(courseClaims(forged, [ADMIN]))).toBe('not-authorized');
    expect(kindOf(courseClaims({ lms_user_is_root_account_admin: true }, [ADMIN]))).toBe('not-authorized');
    expect(kindOf({ ...adminClaims({}), context: COURSE_CONTEXT })).toBe('not-authorized');
  });

  it('marks an administrator without a course role in a course, so the refusal can point to the account navigation', () => {
    expect(resolveLaunchOutcome(courseClaims({}, [ADMIN]))).toMatchObject({ kind: 'not-authorized', administratorInCourse: true });
    expect(resolveLaunchOutcome(courseClaims({}, [`${LIS}system/person#SysAdmin`]))).toMatchObject({ administratorInCourse: true });
    // Anyone else refused in a course is not told about the administration.
    expect(resolveLaunchOutcome(courseClaims({}, [MENTOR]))).not.toHaveProperty('administratorInCourse');
    // An administrator enrolled as a teacher is the course's instructor there.
    expect(kindOf(courseClaims({}, [ADMIN, TEACHER]))).toBe('instructor');
  });

  it('not when the custom surface disagrees with the account context', () => {
    expect(kindOf(adminClaims({ exb_launch_surface: 'course' }))).toBe('not-authorized');
  });
});

describe('launch principal: registration problems', () => {
  it('answers deep linking before anything else', () => {
    expect(kindOf({ ...courseClaims({ exb_launch_surface: undefined }), messageType: 'LtiDeepLinkingRequest' })).toBe('deep-linking');
  });

  it.each([
    ['lms_user_id', '$Canvas.user.id'],
    ['lms_course_id', '$Canvas.course.id'],
    ['lms_membership_roles', '$Canvas.membership.roles'],
    ['lms_lis_membership_roles', '$com.Instructure.membership.roles'],
    ['lms_membership_permissions', '$Canvas.membership.permissions<>'],
    // A developer key made from the older registration document requests the contract's placeholders.
    ['lms_user_id', '$Lms.user.id'],
    ['lms_lis_membership_roles', '$com.Lms.membership.roles'],
  ])('refuses an unexpanded course field %s (%s) as a stale registration, naming what arrived', (field, value) => {
    const error = (() => {
      try {
        resolveLaunchOutcome(courseClaims({ [field]: value }));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(LmsLtiConfigurationError);
    expect((error as LmsLtiConfigurationError).status).toBe(400);
    const details = (error as LmsLtiConfigurationError).details.join(' ');
    expect(details).toContain(field);
    expect(details).toContain(`arrived as ${value}`);
    expect((error as LmsLtiConfigurationError).message).toMatch(/update|Developer Keys/);
  });

  it.each(['lms_user_id', 'lms_root_account_id', 'lms_account_id', 'lms_user_is_root_account_admin'])(
    'refuses an unexpanded or missing account field %s',
    (field) => {
      expect(() => resolveLaunchOutcome(adminClaims({ [field]: `$Canvas.${field}` }))).toThrow(LmsLtiConfigurationError);
      expect(() => resolveLaunchOutcome(adminClaims({ [field]: `$Lms.${field}` }))).toThrow(LmsLtiConfigurationError);
      expect(() => resolveLaunchOutcome(adminClaims({ [field]: undefined }))).toThrow(LmsLtiConfigurationError);
    },
  );

  it('names at most 80 characters of an author-written literal', () => {
    const long = `$Canvas.${'x'.repeat(200)}`;
    const error = (() => {
      try {
        resolveLaunchOutcome(courseClaims({ lms_course_id: long }));
      } catch (e) {
        return e as LmsLtiConfigurationError;
      }
    })();
    expect(error?.details.join(' ')).toContain(`${long.slice(0, 80)}…`);
    expect(error?.details.join(' ')).not.toContain(long);
  });

  it('refuses a launch without the tool’s custom fields at all', () => {
    expect(() => resolveLaunchOutcome({ ...courseClaims({}), custom: {} })).toThrow(LmsLtiConfigurationError);
  });

  it('refuses a non-numeric user or course id as a configuration error', () => {
    expect(() => resolveLaunchOutcome(courseClaims({ lms_user_id: 'abc' }))).toThrow(LmsLtiConfigurationError);
    expect(() => resolveLaunchOutcome(courseClaims({ lms_course_id: '10a' }))).toThrow(LmsLtiConfigurationError);
  });
});
