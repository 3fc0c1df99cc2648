import { createHmac, timingSafeEqual } from 'node:crypto';
import { BASE64URL_TOKEN_LENGTH } from '@exb/shared/base64url-token.js';
import { EXIT_COMPLETE_ROUTE, servicePath } from '@exb/shared/service-paths.js';
import { deriveKey } from '../../security/derived-keys.js';

/**
 * The configuration-bound quit URL. Its last segment is an HMAC over course, content id and the current access code, so
 * - nobody can guess the quit URL of an assessment without the server key, and an exam browser quits only on its own
 *   assessment's URL;
 * - regenerating the access code changes the quit URL, and with it the settings fingerprint, which retires every
 *   configuration, grant and proof issued for the old code;
 * - the URL is the same on every instance and for every student, so it can be part of a deterministic configuration.
 */
export class QuitTokens {
  constructor(private readonly key: Buffer) {}

  static fromAppSecret(appSecret: Buffer): QuitTokens {
    return new QuitTokens(deriveKey(appSecret, 'exb-quit-hmac'));
  }

  /** 43 base64url characters, like every other token of the flow. */
  token(courseId: string, contentId: string, accessCode: string): string {
    return createHmac('sha256', this.key)
      .update(JSON.stringify(['exb-quit/v1', courseId, contentId, accessCode]), 'utf8')
      .digest('base64url');
  }

  quitUrl(baseUrl: string, courseId: string, contentId: string, accessCode: string): string {
    // Where the exam browser's quit URL points: `{base_url}/exb/exit/complete/:courseId/:contentId/:token`.
    return new URL(servicePath(EXIT_COMPLETE_ROUTE, [courseId, contentId, this.token(courseId, contentId, accessCode)]), baseUrl).href;
  }

  matches(token: string, courseId: string, contentId: string, accessCode: string): boolean {
    const given = Buffer.from(token, 'utf8');
    const expected = Buffer.from(this.token(courseId, contentId, accessCode), 'utf8');
    return given.length === BASE64URL_TOKEN_LENGTH && given.length === expected.length && timingSafeEqual(given, expected);
  }
}
