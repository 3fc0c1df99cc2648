import { ErrorCodes } from '@exb/shared/error-codes.js';
import { DomainError } from '../../domain-error.js';

/** The administrator refusals of Document 2's error table, built in one place so every route words them alike. */

export function courseNotConnected(): DomainError {
  return new DomainError(ErrorCodes.ADMIN_COURSE_NOT_CONNECTED,
    'This course is not connected to the exam browser administration of your account. Connect it from the course catalog first.',
  );
}

export function invalidCourseIds(message: string): DomainError {
  return new DomainError(ErrorCodes.INVALID_ADMIN_COURSE_IDS, message);
}

export function invalidAdminRequest(message: string): DomainError {
  return new DomainError(ErrorCodes.INVALID_REQUEST, message);
}
