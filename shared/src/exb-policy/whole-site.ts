/**
 * Whole-site rules (`match: domain`) as a person enters them: what they confirm, and the site of an address pasted
 * where a site belongs.
 */
import { normalizeHostname } from './hostnames.js';
import { policyMessage, type PolicyMessage } from './messages.js';
import { parseUrl } from './text.js';

/**
 * The confirmation a whole-site rule needs, worded as the checkbox that gives it: a refusal for a missing confirmation
 * quotes these words, so the person knows exactly what to tick. The site is named as it will be stored.
 */
export function wholeSiteConfirmationMessage(site: string): PolicyMessage {
  const host = normalizeHostname(site);
  const name = host.ok ? host.value : site.trim();
  return name === '' ? policyMessage('wholeSite.confirmationUnnamed') : policyMessage('wholeSite.confirmation', { site: name });
}

/** The English words of {@link wholeSiteConfirmationMessage}. */
export function wholeSiteConfirmation(site: string): string {
  return wholeSiteConfirmationMessage(site).message;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * The host of a web address entered where a site is asked for: people copy the address bar
 * (`https://en.wikipedia.org/wiki/X` gives `en.wikipedia.org`, `en.wikipedia.org/wiki/X` too). Anything else, including
 * addresses of other schemes, is returned trimmed as it is, for the host name rule to judge.
 */
export function siteOfAddress(value: string): string {
  const raw = value.trim();
  if (SCHEME.test(raw)) {
    const url = parseUrl(raw);
    return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' ? url.hostname : raw;
  }
  const end = raw.search(/[/?#]/);
  return end > 0 ? raw.slice(0, end) : raw;
}
