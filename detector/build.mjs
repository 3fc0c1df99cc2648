import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { BUNDLES, DIST_DIR, buildBundle, bundleProblems } from './build-options.mjs';

await mkdir(DIST_DIR, { recursive: true });
let failed = false;
for (const bundle of BUNDLES) {
  for (const minify of [true, false]) {
    const { code, inputs } = await buildBundle(esbuild, bundle, minify);
    const file = `${bundle.name}${minify ? '' : '.debug'}.js`;
    const problems = bundleProblems(code, inputs);
    for (const problem of problems) console.error(`${file}: ${problem}`);
    failed ||= problems.length > 0;
    await writeFile(join(DIST_DIR, file), code);
    const bytes = Buffer.byteLength(code);
    const gzipped = gzipSync(code).length;
    console.log(`${file.padEnd(34)} ${String(bytes).padStart(7)} B  ${String(gzipped).padStart(6)} B gzip`);
  }
}
if (failed) process.exit(1);
