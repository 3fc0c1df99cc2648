import { describe, expect, it } from 'vitest';
import { acceptsOAuthCompletion, isOAuthCompletionMessage, oauthCompletionMessage } from '../src/oauth-completion.js';

describe('OAuth completion message', () => {
  const popup = { name: 'popup window' };
  const origin = 'https://tool.example.test';

  it('recognises only the completion message', () => {
    expect(isOAuthCompletionMessage(oauthCompletionMessage('lms-oauth-connected'))).toBe(true);
    expect(isOAuthCompletionMessage({ type: 'exb:lms-authorization-completed', view: 'teacher' })).toBe(false);
    expect(isOAuthCompletionMessage('exb:lms-authorization-completed')).toBe(false);
    expect(isOAuthCompletionMessage(null)).toBe(false);
  });

  it('is accepted from the own origin and the opened popup only', () => {
    const data = oauthCompletionMessage('student-session-connected');
    expect(acceptsOAuthCompletion({ origin, source: popup, data }, { origin, popup })).toBe(true);
    expect(acceptsOAuthCompletion({ origin: 'https://lms.example.test', source: popup, data }, { origin, popup })).toBe(false);
    expect(acceptsOAuthCompletion({ origin, source: { other: true }, data }, { origin, popup })).toBe(false);
    expect(acceptsOAuthCompletion({ origin, source: null, data }, { origin, popup: null })).toBe(false);
    expect(acceptsOAuthCompletion({ origin, source: popup, data: { type: 'x' } }, { origin, popup })).toBe(false);
  });
});
