import net from 'node:net';

/**
 * A TCP relay on loopback in front of a real server (PostgreSQL), so a test can make that server unreachable for real:
 * `stop` closes the listening port and cuts every open connection, `start` listens on the same port again.
 */
export interface TcpRelay {
  readonly port: number;
  /** `url` with its host and port replaced by the relay's. */
  through(url: string): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * Cuts one connection at an exact point of the protocol, once; resolves when it did. The relay reads what the client
   * sends as text (SQL travels readable in PostgreSQL's messages).
   */
  cutOnce(cut: RelayCut): Promise<void>;
  /**
   * A partition: connections stay open, but nothing is forwarded either way (nor are new connections' first bytes) until
   * `heal`, which delivers what was held back. A side that closes meanwhile closes the other, and what it had sent is lost.
   */
  stall(): void;
  heal(): void;
}

export interface RelayCut {
  /** The connection to cut is the first whose client sends this (a statement of the transaction to catch)... */
  after: string;
  /** ...and then this (`commit`), matched without regard to case. */
  on: string;
  /**
   * `request`: those bytes never reach the server and the connection is cut; `reply`: they reach the server, and the
   * connection is cut as its answer arrives, so the server acted but the client never hears how.
   */
  drop: 'request' | 'reply';
  /** Runs right after the cut (for instance `stop`, so the client cannot reconnect either). */
  then?: () => Promise<void> | void;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  let pendingCut: { cut: RelayCut; done: () => void } | null = null;
  let stalled = false;
  const held = new Set<() => void>();

  const listen = async () => {
    const next = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      let armed = false;
      let cutOnReply: { cut: RelayCut; done: () => void } | null = null;
      const cutNow = (fired: { cut: RelayCut; done: () => void }) => {
        client.destroy();
        upstream.destroy();
        void Promise.resolve(fired.cut.then?.()).finally(fired.done);
      };
      const toServer: Buffer[] = [];
      const toClient: Buffer[] = [];
      const release = () => {
        for (const chunk of toServer.splice(0)) upstream.write(chunk);
        for (const chunk of toClient.splice(0)) client.write(chunk);
      };
      held.add(release);
      client.on('close', () => held.delete(release));
      client.on('data', (chunk: Buffer) => {
        if (stalled) return void toServer.push(chunk);
        const pending = pendingCut;
        if (pending !== null) {
          const text = chunk.toString('latin1');
          armed ||= text.includes(pending.cut.after);
          if (armed && text.toLowerCase().includes(pending.cut.on.toLowerCase())) {
            pendingCut = null;
            if (pending.cut.drop === 'request') return cutNow(pending);
            cutOnReply = pending;
          }
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (stalled) return void toClient.push(chunk);
        if (cutOnReply !== null) return cutNow(cutOnReply);
        client.write(chunk);
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    port = (next.address() as net.AddressInfo).port;
    server = next;
  };
  await listen();

  const relay: TcpRelay = {
    get port() {
      return port;
    },
    through(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    async stop() {
      const closing = server;
      server = null;
      if (closing === null) return;
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async start() {
      if (server === null) await listen();
    },
    stall() {
      stalled = true;
    },
    heal() {
      stalled = false;
      for (const release of held) release();
    },
    cutOnce(cut) {
      return new Promise<void>((resolve) => {
        pendingCut = { cut, done: resolve };
      });
    },
  };
  return relay;
}
