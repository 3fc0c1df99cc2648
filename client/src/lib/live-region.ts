const LIVE_REGION_ID = 'exb-live-region';

/**
 * The region InstUI alerts announce into. Screen readers only announce changes to a region that
 * already existed, so main.tsx creates it before the first render.
 */
export function getLiveRegion(): HTMLElement {
  const existing = document.getElementById(LIVE_REGION_ID);
  if (existing) return existing;
  const region = document.createElement('div');
  region.id = LIVE_REGION_ID;
  region.setAttribute('role', 'alert');
  region.setAttribute('aria-live', 'polite');
  region.setAttribute('aria-relevant', 'additions text');
  document.body.appendChild(region);
  return region;
}
