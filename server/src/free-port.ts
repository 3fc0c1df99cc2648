import { createServer } from 'node:net';

/**
 * Ports this process handed out already. The kernel may give a port it just released to the next ask, so two
 * `freePort()` calls in a row (a service and its LMS) could otherwise get the same one.
 */
const handedOut = new Set<number>();

function askKernel(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Asks the kernel for a free loopback port that this process has not handed out before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await askKernel();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no unused loopback port after 20 attempts');
}
