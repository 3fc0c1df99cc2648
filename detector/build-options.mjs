// Bundle settings shared by build.mjs and the bundle tests, so both check the same output.
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export const CONFIG_MARKER = '__EXB_DETECTOR_CONFIG__';

export const BUNDLES = [
  { name: 'lms-exb-theme-loader', entry: here('./src/theme-loader.ts') },
  { name: 'lms-exb-detector', entry: here('./src/detector.ts') },
];

export const DIST_DIR = here('./dist');

export function bundleOptions(entry, { minify }) {
  return {
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2019',
    tsconfig: here('./tsconfig.json'),
    minify,
    legalComments: 'none',
    metafile: true,
    write: false,
    logLevel: 'silent',
  };
}

/**
 * Problems that must stop a bundle from shipping: the server injects configuration by replacing the marker, so it
 * must appear exactly once, and browser code must not pull in the schema library.
 */
export function bundleProblems(code, inputs) {
  const problems = [];
  const markers = code.split(CONFIG_MARKER).length - 1;
  if (markers !== 1) problems.push(`expected the configuration marker once, found ${markers}`);
  const zodInputs = inputs.filter((path) => /(^|\/)node_modules\/zod\//.test(path));
  if (zodInputs.length > 0) problems.push(`zod is bundled (${zodInputs[0]})`);
  const foreign = inputs.filter((path) => path.includes('node_modules/'));
  if (foreign.length > 0) problems.push(`runtime dependency bundled (${foreign[0]})`);
  return problems;
}

export async function buildBundle(esbuild, bundle, minify) {
  const result = await esbuild.build(bundleOptions(bundle.entry, { minify }));
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`no output for ${bundle.name}`);
  return { code: output.text, inputs: Object.keys(result.metafile.inputs) };
}
