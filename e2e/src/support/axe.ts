import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

export interface AxeScope {
  /** Only what is inside this frame element of the page (a page of the tool in the LMS's frame). */
  frame?: string;
  /** Left out (a frame showing another application's pages). */
  exclude?: string[];
}

/**
 * The serious and critical accessibility violations axe finds on `page`, one readable line each (rule, help, where), so
 * a test can expect an empty list and a failure says what to fix.
 */
export async function seriousViolations(page: Page, scope: AxeScope = {}): Promise<string[]> {
  await settledAnimations(page);
  let builder = new AxeBuilder({ page });
  for (const selector of scope.exclude ?? []) builder = builder.exclude(selector);
  const results = await builder.analyze();
  const lines: string[] = [];
  for (const violation of results.violations) {
    if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
    const nodes = violation.nodes.filter((node) => {
      if (scope.frame === undefined) return true;
      const target = node.target as unknown[];
      return target.length > 1 && target[0] === scope.frame;
    });
    if (nodes.length === 0) continue;
    lines.push(`${violation.id} (${violation.impact}): ${violation.help} at ${nodes.map((node) => JSON.stringify(node.target)).join(', ')}`);
  }
  return lines;
}

/**
 * Alerts and dialogs fade in; a contrast check sampled mid-transition measures colours no one reads. Waits until every
 * running animation and transition of the page and its frames has finished (bounded, so a looping spinner cannot hold
 * the test).
 */
async function settledAnimations(page: Page): Promise<void> {
  await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate(
          `Promise.race([
            Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished)),
            new Promise((resolve) => setTimeout(resolve, 2000)),
          ])`,
        )
        .catch(() => undefined),
    ),
  );
}
