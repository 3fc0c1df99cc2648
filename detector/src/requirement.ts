import { requestJson, type FetchFunction, type Timers } from './http.js';
import { isEnforcementRequired } from './responses.js';
import { serviceUrls, type AssessmentTarget } from './service-urls.js';

/**
 * Asks the service whether the exam browser is required for an assessment, without cookies and past any cache. Only
 * an explicit confirmation counts; errors and anything else mean "not required".
 */
export async function checkRequirement(
  fetchFn: FetchFunction,
  timers: Timers,
  baseUrl: string,
  target: AssessmentTarget,
): Promise<boolean> {
  const res = await requestJson(fetchFn, timers, serviceUrls.requirement(baseUrl, target), {
    method: 'GET',
    credentials: 'omit',
    cache: 'no-store',
    redirect: 'error',
    mode: 'cors',
    headers: { accept: 'application/json' },
  });
  return res !== null && isEnforcementRequired(res.status, res.body);
}
