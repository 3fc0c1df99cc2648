import { describe, expect, it } from 'vitest';
import { AUTHORIZATION_STARTS, authorizationStartOf, authorizationStartPath } from '../src/oauth-popup-ticket.js';

describe('authorization starts', () => {
  it('maps each start to its path and back', () => {
    for (const start of AUTHORIZATION_STARTS) expect(authorizationStartOf(authorizationStartPath(start))).toBe(start);
    expect(authorizationStartPath('admin/oauth2authorize')).toBe('/api/admin/oauth2authorize');
  });

  it('knows no other path', () => {
    for (const path of ['/api/oauth2callback', '/api/oauth2/popup-ticket', '/api/oauth2authorize/', '/oauth2authorize', 'oauth2authorize', '']) {
      expect(authorizationStartOf(path), path).toBeNull();
    }
  });
});
