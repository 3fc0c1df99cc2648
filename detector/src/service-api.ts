import { requestJson, type FetchFunction, type Timers } from './http.js';
import { checkRequirement } from './requirement.js';
import {
  parseProofResponse,
  parseRedemptionResponse,
  parseToolsResponse,
  type ProofOutcome,
  type Redemption,
  type Tool,
} from './responses.js';
import { serviceUrls, type AssessmentTarget } from './service-urls.js';

export interface ServiceApi {
  isRequired(target: AssessmentTarget): Promise<boolean>;
  proveAccess(target: AssessmentTarget, proof: { configKeyHash: string; url: string }): Promise<ProofOutcome>;
  redeemAccessCode(target: AssessmentTarget, proofToken: string): Promise<Redemption | null>;
  fetchTools(target: AssessmentTarget): Promise<Tool[] | null>;
  trace(event: Record<string, string | number | boolean>): Promise<void>;
}

// Service calls carry no cookies: identity comes from the key proof and the proof token, never from ambient
// credentials. The tools refresh is the one call that needs the service session.
const PUBLIC_REQUEST: RequestInit = { credentials: 'omit', cache: 'no-store', redirect: 'error', mode: 'cors' };

export function createServiceApi(baseUrl: string, fetchFn: FetchFunction, timers: Timers): ServiceApi {
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    requestJson(fetchFn, timers, url, {
      ...PUBLIC_REQUEST,
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  return {
    isRequired: (target) => checkRequirement(fetchFn, timers, baseUrl, target),
    async proveAccess(target, proof) {
      const res = await post(serviceUrls.accessProof(baseUrl, target), {
        configKeyHash: proof.configKeyHash,
        url: proof.url,
      });
      return res === null ? { ok: false, status: 0, errorCode: null } : parseProofResponse(res.status, res.body);
    },
    async redeemAccessCode(target, proofToken) {
      const res = await post(serviceUrls.accessCode(baseUrl, target), {}, { 'x-exb-proof-token': proofToken });
      return res === null ? null : parseRedemptionResponse(res.status, res.body, baseUrl);
    },
    async fetchTools(target) {
      const res = await requestJson(fetchFn, timers, serviceUrls.tools(baseUrl, target), {
        ...PUBLIC_REQUEST,
        credentials: 'include',
        method: 'GET',
        headers: { accept: 'application/json' },
      });
      return res === null ? null : parseToolsResponse(res.status, res.body, baseUrl);
    },
    async trace(event) {
      await post(serviceUrls.trace(baseUrl), event);
    },
  };
}
