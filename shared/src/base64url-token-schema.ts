import { z } from 'zod';
import { BASE64URL_TOKEN_LENGTH, BASE64URL_TOKEN_PATTERN } from './base64url-token.js';

/** A config grant, proof token or exit grant, checked for syntax before any database access. */
export const base64UrlTokenSchema = z
  .string()
  .length(BASE64URL_TOKEN_LENGTH)
  .regex(BASE64URL_TOKEN_PATTERN, 'Expected a 43-character base64url token');
