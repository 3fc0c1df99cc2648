import { describe, expect, it } from 'vitest';
import {
  EXIT_GRANT_LIFETIME_SECONDS,
  isEnforcementRequired,
  parseProofResponse,
  parseRedemptionResponse,
  parseToolsResponse,
  safeToolUrl,
} from '../src/responses.js';
import { EXIT_GRANT, PROOF_TOKEN, SERVICE } from './support.js';

describe('isEnforcementRequired', () => {
  it('is true only for exactly success true and exbRequired true', () => {
    expect(isEnforcementRequired(200, { success: true, exbRequired: true })).toBe(true);
    expect(isEnforcementRequired(200, { success: true, exbRequired: false })).toBe(false);
    expect(isEnforcementRequired(200, { success: true, exbRequired: 'true' })).toBe(false);
    expect(isEnforcementRequired(200, { success: 1, exbRequired: true })).toBe(false);
    expect(isEnforcementRequired(200, { exbRequired: true })).toBe(false);
    expect(isEnforcementRequired(500, { success: true, exbRequired: true })).toBe(false);
    expect(isEnforcementRequired(200, [{ success: true, exbRequired: true }])).toBe(false);
    expect(isEnforcementRequired(200, undefined)).toBe(false);
  });
});

describe('parseProofResponse', () => {
  it('accepts a well-formed proof token', () => {
    expect(parseProofResponse(200, { success: true, proofToken: PROOF_TOKEN, expiresInSeconds: 120 })).toEqual({
      ok: true,
      proofToken: PROOF_TOKEN,
    });
  });

  it('reports failures with status and error code', () => {
    expect(parseProofResponse(403, { success: false, error_code: 'INVALID_EXB_CONFIG_PROOF' })).toEqual({
      ok: false,
      status: 403,
      errorCode: 'INVALID_EXB_CONFIG_PROOF',
    });
    expect(parseProofResponse(200, { success: true, proofToken: 'short' })).toMatchObject({ ok: false, status: 200 });
    expect(parseProofResponse(200, { success: true, proofToken: `${PROOF_TOKEN}\n` })).toMatchObject({ ok: false });
  });
});

describe('parseRedemptionResponse', () => {
  const body = {
    success: true,
    accessCode: ' c0de$& ',
    exitGrant: EXIT_GRANT,
    exitGrantExpiresInSeconds: 43200,
    tools: [{ id: 'calc', label: 'Calculator', url: 'https://tools.example.edu/calc' }],
  };

  it('keeps the access code verbatim, the grant and the tools', () => {
    expect(parseRedemptionResponse(200, body, SERVICE)).toEqual({
      accessCode: ' c0de$& ',
      exitGrant: EXIT_GRANT,
      exitGrantExpiresInSeconds: 43200,
      tools: body.tools,
    });
  });

  it('treats missing or malformed fields as absent', () => {
    const parsed = parseRedemptionResponse(200, { success: true, accessCode: '', exitGrant: 'x', exitGrantExpiresInSeconds: 1e9 }, SERVICE);
    expect(parsed).toEqual({ accessCode: null, exitGrant: null, exitGrantExpiresInSeconds: EXIT_GRANT_LIFETIME_SECONDS, tools: [] });
    expect(parseRedemptionResponse(200, { ...body, accessCode: 'a\nb' }, SERVICE)?.accessCode).toBeNull();
    expect(parseRedemptionResponse(200, { ...body, accessCode: 'x'.repeat(257) }, SERVICE)?.accessCode).toBeNull();
    expect(parseRedemptionResponse(200, { ...body, accessCode: 1234 }, SERVICE)?.accessCode).toBeNull();
  });

  it('rejects failures', () => {
    expect(parseRedemptionResponse(403, body, SERVICE)).toBeNull();
    expect(parseRedemptionResponse(200, { ...body, success: false }, SERVICE)).toBeNull();
    expect(parseRedemptionResponse(200, 'ok', SERVICE)).toBeNull();
  });
});

describe('tools', () => {
  it('drops tools with unsafe or malformed fields', () => {
    const tools = parseToolsResponse(
      200,
      {
        success: true,
        tools: [
          { id: 'ok', label: 'Fine', url: 'https://tools.example.edu/a' },
          { id: 'js', label: 'Bad', url: 'javascript:alert(1)' },
          { id: 'data', label: 'Bad', url: 'data:text/html,x' },
          { id: 'http', label: 'Bad', url: 'http://tools.example.edu/a' },
          { id: 'cred', label: 'Bad', url: 'https://u:p@tools.example.edu/a' },
          { id: 'rel', label: 'Bad', url: '/relative' },
          { id: '', label: 'Bad', url: 'https://tools.example.edu/b' },
          { id: 'nolabel', label: '  ', url: 'https://tools.example.edu/b' },
          { id: 'ctl', label: 'a\u0007b', url: 'https://tools.example.edu/b' },
          'string',
          null,
        ],
      },
      SERVICE,
    );
    expect(tools).toEqual([{ id: 'ok', label: 'Fine', url: 'https://tools.example.edu/a' }]);
  });

  it('caps the number of tools', () => {
    const many = Array.from({ length: 80 }, (_, i) => ({ id: `t${i}`, label: `T${i}`, url: `https://t.example/${i}` }));
    expect(parseToolsResponse(200, { success: true, tools: many }, SERVICE)).toHaveLength(50);
  });

  it('keeps the current tools when the refresh is not a success', () => {
    expect(parseToolsResponse(403, { success: false }, SERVICE)).toBeNull();
    expect(parseToolsResponse(200, { success: true }, SERVICE)).toBeNull();
    expect(parseToolsResponse(200, { success: true, tools: [] }, SERVICE)).toEqual([]);
  });

  it('allows plain HTTP only on the service origin', () => {
    expect(safeToolUrl('http://localhost:3000/exb/tool/video/dQw4w9WgXcQ', 'http://localhost:3000')).toBe(
      'http://localhost:3000/exb/tool/video/dQw4w9WgXcQ',
    );
    expect(safeToolUrl('http://localhost:4000/x', 'http://localhost:3000')).toBeNull();
  });
});
