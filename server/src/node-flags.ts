/**
 * The Node flags production starts the service with: `node --max-old-space-size=512 --experimental-async-context-frame
 * server/dist/main.js` (the project's Node 22).
 *
 * `--max-old-space-size=512`: the service keeps 45 to 70 MB of live JavaScript objects, however many students start.
 * Without a limit, Node on a machine with more than 16 GB of memory sizes the old generation for 4 GB, and V8 then lets
 * it grow to up to four times the live size between full collections; an exam start's garbage (and the buffers it
 * holds) therefore pushed the process to 300 to 350 MB RSS, which stays resident once reached. With a 512 MB limit V8
 * grows the heap by at most about 1.4 times the live size, and the same start peaks near 200 MB at no measurable CPU
 * cost (`npm run bench -- student`). 512 MB is still about eight times the live heap; an instance with unusually large
 * administrator workloads can raise it.
 *
 * `--experimental-async-context-frame`: the ORM keeps its context in an AsyncLocalStorage, which on Node 22 otherwise
 * installs an async hook that runs for every promise the process creates (every query, every request); with context
 * frames (Node 24's default) the store travels with the continuation at no per-promise cost, about 0.3 ms of CPU less
 * per student start. The tests run with the same flag (`vitest.config.ts`). Node 24 and later need no flag.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ['--max-old-space-size=512', ...asyncContextFrameFlags(process.versions.node)];

/** `--experimental-async-context-frame` where Node has it and it is not yet the default (22.7 up to 24). */
export function asyncContextFrameFlags(nodeVersion: string): string[] {
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  return (major === 22 && minor >= 7) || major === 23 ? ['--experimental-async-context-frame'] : [];
}
