import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_TRANSACTION_COOKIES, TransactionBinder } from '../../src/lti/login-state.js';

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

  it('still accepts a cookie of the earlier two-part form, and refuses a malformed time', () => {
    const tx = binder.create();
    const [id, hash] = tx.cookieValue.split('.');
    expect(binder.check({ [tx.cookieName]: `${id}.${hash}` }, tx.binding)).toBe('ok');
    expect(binder.check({ [tx.cookieName]: `${id}.${hash}.NOT-A-TIME` }, tx.binding)).toBe('mismatch');
    expect(binder.check({ [tx.cookieName]: `${id}.${hash}.1.2` }, tx.binding)).toBe('mismatch');
  });

  it('clears the oldest transaction cookies so that a new one makes at most four', () => {
    expect(MAX_TRANSACTION_COOKIES).toBe(4);
    const held = Array.from({ length: 7 }, (_, i) => binder.create(1_800_000_000_000 + i * 1000));
    const cookies: Record<string, string> = { exb_session: 'x', other: 'y' };
    // Listed newest first, so the order of the header does not decide.
    for (const tx of [...held].reverse()) cookies[tx.cookieName] = tx.cookieValue;
    expect(binder.cookiesToClear(cookies)).toEqual(held.slice(0, 4).map((tx) => tx.cookieName));
    expect(binder.cookiesToClear({ [held[0]!.cookieName]: held[0]!.cookieValue })).toEqual([]);
    // Cookies without a readable time go first.
    const undated = { ...cookies, exb_lti_tx_AAAAAAAAAAAAAAAA: 'junk' };
    expect(binder.cookiesToClear(undated)).toEqual(['exb_lti_tx_AAAAAAAAAAAAAAAA', ...held.slice(0, 4).map((tx) => tx.cookieName)]);
  });
});
