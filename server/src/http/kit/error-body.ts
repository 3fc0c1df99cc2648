import type { ErrorCode } from '@exb/shared/error-codes.js';

/** The contract's error body for JSON routes. */
export interface ErrorBody {
  success: false;
  error_code: ErrorCode;
  message: string;
}

export function errorBody(errorCode: ErrorCode, message: string): ErrorBody {
  return { success: false, error_code: errorCode, message };
}
