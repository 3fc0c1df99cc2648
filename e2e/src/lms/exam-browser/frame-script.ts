import { SimulatedExamBrowser } from '../../exb-simulator/index.js';

let frameScript: string | undefined;

/** The page API for LMS pages shown in the simulated exam browser's frame; inert in every other window. */
export function examBrowserFrameScript(): string {
  frameScript ??= SimulatedExamBrowser.frameNameScript();
  return frameScript;
}
