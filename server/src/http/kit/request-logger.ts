import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;

type Bindings = Record<string, unknown>;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const BINDINGS = Symbol('bindings');
const CHILD = Symbol('child');

interface LazyLogger extends FastifyBaseLogger {
  [BINDINGS]: Bindings;
  [CHILD]?: FastifyBaseLogger;
}

/**
 * Fastify gives every request a child logger bound to its request id. pino serializes a child's bindings when it is
 * made, through the wildcard redaction (`logger.ts`), which cost the hot public paths more than their own work; most
 * requests never log. This factory hands out a logger that inherits everything from its parent (level, serializers,
 * `isLevelEnabled`) and makes the real child, with the request id, only when a line is written or a child is asked
 * for. Route-level options (a route's own log level or serializers) still get a real child at once.
 */
export function lazyRequestLoggerFactory(): ChildLoggerFactory {
  const prototypes = new WeakMap<FastifyBaseLogger, object>();
  return function (logger, bindings, options) {
    if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
    let prototype = prototypes.get(logger);
    if (prototype === undefined) {
      prototype = lazyPrototype(logger);
      prototypes.set(logger, prototype);
    }
    const lazy = Object.create(prototype) as LazyLogger;
    lazy[BINDINGS] = bindings;
    return lazy;
  };
}

function lazyPrototype(parent: FastifyBaseLogger): object {
  const prototype = Object.create(parent) as Record<string, unknown>;
  const real = (self: LazyLogger): FastifyBaseLogger => (self[CHILD] ??= parent.child(self[BINDINGS]));
  for (const level of LEVELS) {
    prototype[level] = function (this: LazyLogger, ...args: unknown[]) {
      // A level the parent does not write (and `silent`, which writes nothing) costs nothing, as with a real child.
      if (level === 'silent' || !(parent as unknown as Logger).isLevelEnabled(level)) return;
      return (real(this)[level] as (...values: unknown[]) => void)(...args);
    };
  }
  prototype.child = function (this: LazyLogger, bindings: Bindings, options?: object) {
    return real(this).child(bindings, options);
  };
  prototype.bindings = function (this: LazyLogger) {
    return (real(this) as FastifyBaseLogger & { bindings(): Bindings }).bindings();
  };
  return prototype;
}
