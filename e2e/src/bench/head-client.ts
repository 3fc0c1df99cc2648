import net from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * `HEAD` requests on kept-alive connections, as a proxy in front of the service sends them. Node's clients (its own
 * and fetch) close the connection after an answer to `HEAD` without `Content-Length`, and the download's answer has
 * none (the file is built by the `GET`), so through them every start would open a connection to the service that no
 * proxy opens: nginx, for one, knows a `HEAD` answer has no body and keeps the connection. This client writes the
 * request itself and reads the answer's head, which is all a `HEAD` answer is.
 */
export class HeadClient {
  private readonly idle: net.Socket[] = [];

  constructor(private readonly origin: URL) {}

  async head(pathAndQuery: string, headers: Record<string, string>): Promise<{ status: number; ms: number }> {
    const sent = performance.now();
    const socket = this.idle.pop() ?? (await this.connect());
    const lines = [
      `HEAD ${pathAndQuery} HTTP/1.1`,
      `host: ${this.origin.host}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        done();
        if (end + 4 !== text.length) reject(new Error('bytes after the head of a HEAD answer'));
        else resolve(text.slice(0, end));
      };
      const onEnd = () => {
        done();
        reject(new Error('the service closed the connection'));
      };
      const done = () => {
        socket.off('data', onData).off('error', onEnd).off('close', onEnd);
      };
      socket.on('data', onData).once('error', onEnd).once('close', onEnd);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
    if (/\r\nconnection: *close/i.test(answer)) socket.destroy();
    else this.idle.push(socket);
    return { status, ms: performance.now() - sent };
  }

  close(): void {
    for (const socket of this.idle.splice(0)) socket.destroy();
  }

  private connect(): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: this.origin.hostname, port: Number(this.origin.port) }, () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', reject);
      socket.setNoDelay(true);
      // An idle connection the service closes leaves the pool; errors surface through the request that uses it.
      socket.on('error', () => undefined);
      socket.once('close', () => {
        const at = this.idle.indexOf(socket);
        if (at >= 0) this.idle.splice(at, 1);
      });
    });
  }
}
