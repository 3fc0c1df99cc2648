/** A server-sent events stream read with `fetch`, as a browser's `EventSource` reads it: events by type, in order. */
export interface SseEvent {
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The next event other than the keep-alive pings; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Every event that arrives within `ms` (pings left out). */
  collect(ms: number): Promise<SseEvent[]>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const queue: SseEvent[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  let ended = false;
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (event === 'ping' || (data.length === 0 && event === 'message')) continue;
          queue.push({ event, data: data.join('\n') });
          waiters.splice(0).forEach((wake) => wake());
        }
      }
    } catch {
      // Aborted by close().
    } finally {
      ended = true;
      waiters.splice(0).forEach((wake) => wake());
    }
  })();

  const next = async (timeoutMs = 5_000): Promise<SseEvent> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0) {
      if (ended) throw new Error('the stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return queue.shift()!;
  };

  return {
    status: response.status,
    headers: response.headers,
    next,
    async collect(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return queue.splice(0);
    },
    close: () => abort.abort(),
  };
}
