import { contentIdMatchesCourse, isContentId, isLmsId } from '@exb/shared/content-id.js';

/**
 * The scope check every settings statement makes first: it names the course it acts in and refuses rows of any other
 * course, so a caller holding a session for one course cannot reach another by content id alone.
 */
export class SettingsScopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsScopeError';
  }
}

export function checkCourse(courseId: string): void {
  if (!isLmsId(courseId)) throw new SettingsScopeError('course id is not a canonical LMS id');
}

export function checkScope(courseId: string, contentId: string): void {
  checkCourse(courseId);
  if (!isContentId(contentId) || !contentIdMatchesCourse(contentId, courseId)) {
    throw new SettingsScopeError('content id is not a canonical content id of this course');
  }
}
