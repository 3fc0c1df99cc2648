export type Logger = (message: string, detail?: unknown) => void;

/** A console logger in debug mode, otherwise silent. Callers never pass codes, tokens or key hashes. */
export function createLogger(enabled: boolean, sink: Pick<Console, 'debug'> | undefined): Logger {
  if (!enabled || sink === undefined) return () => undefined;
  const debug = sink.debug.bind(sink);
  return (message, detail) => {
    if (detail === undefined) debug(`[exb] ${message}`);
    else debug(`[exb] ${message}`, detail);
  };
}
