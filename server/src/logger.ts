import pino, { type Logger } from 'pino';

/** Paths pino censors wherever they appear in a log object; the list covers every secret the service handles. */
export const REDACTED_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-exb-proof-token"]',
  'req.headers["x-exb-action-token"]',
  'req.headers["x-exb-configkeyhash"]',
  'req.headers["x-exb-session-token"]',
  'res.headers["set-cookie"]',
  'res.headers["x-exb-session-token"]',
  '*.password',
  '*.secret',
  '*.clientSecret',
  '*.client_secret',
  '*.accessToken',
  '*.access_token',
  '*.refreshToken',
  '*.refresh_token',
  '*.accessCode',
  '*.access_code',
  '*.id_token',
  '*.idToken',
  // OAuth authorization codes, where a query or body is logged; never `*.code`, which would hide every `err.code`.
  'query.code',
  'body.code',
  '*.query.code',
  '*.body.code',
  '*.state',
  '*.grant',
  '*.token',
  '*.ticket',
  // The session token, should a navigation's query or a page's bootstrap be logged as an object.
  '*.session_token',
  '*.sessionToken',
];

// Tokens also travel in paths (exit grants) and queries (config grants, OAuth codes): logs keep only the shape.
const TOKEN_SEGMENT = /^[A-Za-z0-9_-]{32,}$/;

export function redactUrl(url: string): string {
  const [pathPart = '', query] = url.split('?', 2);
  const path = pathPart
    .split('/')
    .map((segment) => (TOKEN_SEGMENT.test(segment) ? '[redacted]' : segment))
    .join('/');
  if (query === undefined) return path;
  const keys = [...new URLSearchParams(query).keys()];
  return `${path}?${keys.map((key) => `${encodeURIComponent(key)}=[redacted]`).join('&')}`;
}

interface SerializableRequest {
  method: string;
  url: string;
  ip?: string;
  id?: string;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: SerializableRequest) => ({ id: req.id, method: req.method, url: redactUrl(req.url), ip: req.ip }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
