import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TransactionBinder } from '../../src/lti/login-state.js';

describe('browser transaction binding', () => {
  const binder = new TransactionBinder(randomBytes(32));

  it('accepts the cookie of the transaction the state was bound to', () => {
    const tx = binder.create();
    expect(binder.check({ [tx.cookieName]: tx.cookieValue }, tx.binding)).toBe('ok');
  });

  it('reports a missing cookie', () => {
    const tx = binder.create();
    expect(binder.check({}, tx.binding)).toBe('missing');
  });

  it('refuses another transaction’s cookie placed under this name', () => {
    const mine = binder.create();
    const other = binder.create();
    expect(binder.check({ [mine.cookieName]: other.cookieValue }, mine.binding)).toBe('mismatch');
  });

  it('refuses a cookie whose hash was altered, and one minted with another key', () => {
    const tx = binder.create();
    const [id] = tx.cookieValue.split('.');
    expect(binder.check({ [tx.cookieName]: `${id}.${'A'.repeat(43)}` }, tx.binding)).toBe('mismatch');
    const foreign = new TransactionBinder(randomBytes(32)).create();
    expect(binder.check({ [binder.cookieName(foreign.binding)]: foreign.cookieValue }, foreign.binding)).toBe('mismatch');
  });

  it('gives concurrent logins distinct cookie names', () => {
    expect(binder.create().cookieName).not.toBe(binder.create().cookieName);
  });
});
