import type { LightMyRequestResponse } from 'fastify';

/** What a browser set to German sends. */
export const GERMAN_BROWSER = { 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' } as const;

/** A page's declared language, its title and, where it carries bootstrap data, the locale written there. */
export function languageOf(response: LightMyRequestResponse): { lang?: string; title?: string; locale?: unknown } {
  const bootstrap = /<script id="exb-bootstrap" type="application\/json">(.*?)<\/script>/s.exec(response.body)?.[1];
  return {
    lang: /^<!doctype html><html lang="([a-z]+)">/.exec(response.body)?.[1],
    title: /<title>(.*?)<\/title>/.exec(response.body)?.[1],
    locale: bootstrap === undefined ? undefined : (JSON.parse(bootstrap) as { locale?: unknown }).locale,
  };
}
