import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PRODUCTION_NODE_FLAGS } from '@exb/server/node-flags.js';
import type { LoadResult } from './load.js';
import type { MemoryPhase, ServerRequest, ServerSeed } from './server-process.js';

const SERVER_SCRIPT = fileURLToPath(new URL('./server-process.js', import.meta.url));

/** A server (the service or the bare route) in a child process of its own, driven over IPC. */
export class ServerProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
      if (message.id === undefined) return;
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.result);
    });
  }

  static start(kind: 'bare' | 'service', env: NodeJS.ProcessEnv, seed: ServerSeed): Promise<ServerProcess> {
    const child = fork(SERVER_SCRIPT, [kind], {
      env: { ...env, BENCH_SEED: JSON.stringify(seed) },
      execArgv: kind === 'service' ? serviceNodeFlags() : [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const failed = (code: number | null) => reject(new Error(`the ${kind} server exited with ${code} before it was ready`));
      child.once('exit', failed);
      child.once('message', (message: { ready?: boolean; port?: number }) => {
        if (message.ready !== true) return;
        child.off('exit', failed);
        resolve(new ServerProcess(child, message.port!));
      });
    });
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  call<T>(request: ServerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ ...request, id });
    });
  }

  /** CPU time of the whole process (every thread) so far, microseconds. */
  async cpu(): Promise<{ micros: number; maxRssKb: number }> {
    const usage = await this.call<{ cpu: NodeJS.CpuUsage; maxRssKb: number }>({ type: 'cpu' });
    return { micros: usage.cpu.user + usage.cpu.system, maxRssKb: usage.maxRssKb };
  }

  /** Statements the service has sent to PostgreSQL so far. */
  statements(): Promise<number> {
    return this.call<number>({ type: 'statements' });
  }

  /** Ends a memory phase in the service process: its memory now and the highest seen since the last phase ended. */
  memory(phase: string): Promise<MemoryPhase> {
    return this.call<MemoryPhase>({ type: 'memory', phase });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    await this.call({ type: 'stop' }).catch(() => undefined);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

/** The service runs with the flags production starts it with, unless BENCH_SERVICE_NODE_FLAGS names others ('' for none). */
export function serviceNodeFlags(): string[] {
  return (process.env.BENCH_SERVICE_NODE_FLAGS ?? PRODUCTION_NODE_FLAGS.join(' ')).split(' ').filter(Boolean);
}

/** Runs `work` and reads the server's CPU time around it. */
export async function measured(server: ServerProcess, work: () => Promise<LoadResult>): Promise<{ result: LoadResult; cpuMicros: number }> {
  const before = await server.cpu();
  const result = await work();
  const after = await server.cpu();
  return { result, cpuMicros: after.micros - before.micros };
}

