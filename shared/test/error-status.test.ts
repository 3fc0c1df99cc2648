import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, ErrorCodes, errorStatus, errorStatusAt, ROUTE_ERROR_STATUS } from '../src/error-codes.js';

describe('the status of an error code', () => {
  it('is the catalogue’s on every route that has no status of its own for the code', () => {
    expect(errorStatusAt(ErrorCodes.EXB_CERTIFICATE_UNAVAILABLE)).toBe(503);
    expect(errorStatusAt(ErrorCodes.REQUEST_TIMEOUT)).toBe(408);
    expect(errorStatusAt(ErrorCodes.LTI_PRINCIPAL_REQUIRED, 'configDownload')).toBe(errorStatus(ErrorCodes.LTI_PRINCIPAL_REQUIRED));
  });

  it('is the route’s own where the contract gives one', () => {
    // Document 3: the download answers every configuration it cannot build 400.
    expect(errorStatusAt(ErrorCodes.EXB_CERTIFICATE_UNAVAILABLE, 'configDownload')).toBe(400);
    expect(errorStatusAt(ErrorCodes.EXB_CONFIG_UNAVAILABLE, 'configDownload')).toBe(400);
    expect(errorStatusAt(ErrorCodes.EXB_CONFIG_GRANT_INVALID, 'configDownload')).toBe(403);
    // Document 1: the authorization starts answer a missing principal 401.
    expect(errorStatusAt(ErrorCodes.LTI_PRINCIPAL_REQUIRED, 'authorizationStart')).toBe(401);
  });

  it('names only codes of the catalogue that answer with a status, each with one other than their own', () => {
    for (const overrides of Object.values(ROUTE_ERROR_STATUS)) {
      for (const [code, status] of Object.entries(overrides)) {
        expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS], code).not.toBeNull();
        expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS], code).not.toBe(status);
      }
    }
  });
});
