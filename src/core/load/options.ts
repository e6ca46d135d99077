import { ErrorCode, HotpathError } from '../common/errors';
import { resolveRoutes, type RouteInput, type RouteSpec } from './routes';

/**
 * What load to apply and where. Resolved once (defaults + validation) before anything runs, like
 * autocannon's own defaults object, so a bad flag fails in milliseconds instead of after the app started.
 */
export interface LoadOptions {
  /** Full target URL; when absent the target is `http://127.0.0.1:<port><path>`. */
  url?: string;
  /** Port the app listens on (explicit, or detected by the target launcher). */
  port?: number;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  pipelining: number;
  timeoutSeconds: number;
  /**
   * Several routes with weights (`--request METHOD:PATH[:WEIGHT]`, a load file): when set, each
   * connection cycles through them and `path`/`method`/`body` are unused; `headers` apply to all.
   */
  routes?: RouteSpec[];
}

/** What callers may hand in: numbers may still be the CLI's raw strings, headers may be raw `K: V` lines. */
export type LoadOptionsInput = {
  [K in Exclude<keyof LoadOptions, 'headers' | 'routes'>]?: LoadOptions[K] | string;
} & {
  headers?: Record<string, string> | readonly string[];
  routes?: readonly RouteInput[];
};

export const DEFAULT_LOAD_OPTIONS: Readonly<Omit<LoadOptions, 'url' | 'port' | 'body'>> = Object.freeze({
  path: '/',
  method: 'GET',
  headers: Object.freeze({}) as Record<string, string>,
  connections: 10,
  durationSeconds: 10,
  warmupSeconds: 3,
  pipelining: 1,
  timeoutSeconds: 10,
});

/** The methods autocannon's request builder knows (its lib/httpMethods.js). */
export const HTTP_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];

/** Each option's CLI flag and setting key, so one message serves both front ends (details carry the setting). */
const NAMES = {
  url: { flag: '--url', setting: undefined },
  port: { flag: '--port', setting: undefined },
  path: { flag: '--path', setting: 'hotpath.load.path' },
  method: { flag: '--method', setting: 'hotpath.load.method' },
  headers: { flag: '--header', setting: undefined },
  body: { flag: '--body', setting: undefined },
  connections: { flag: '--connections', setting: 'hotpath.load.connections' },
  durationSeconds: { flag: '--duration', setting: 'hotpath.load.durationSeconds' },
  warmupSeconds: { flag: '--warmup', setting: 'hotpath.load.warmupSeconds' },
  pipelining: { flag: '--pipelining', setting: 'hotpath.load.pipelining' },
  timeoutSeconds: { flag: '--timeout', setting: undefined },
  routes: { flag: '--request', setting: undefined },
} as const satisfies Record<keyof LoadOptions, { flag: string; setting: string | undefined }>;

function optionError(option: keyof LoadOptions, message: string): HotpathError {
  const { flag, setting } = NAMES[option];
  return new HotpathError(ErrorCode.InvalidOption, `${flag} ${message}`, { option, flag, setting });
}

function shown(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

/** Whole numbers only: "1.5 connections" or "10s" are mistakes worth naming, not values to round. */
function wholeNumber(option: keyof LoadOptions, raw: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw optionError(option, `must be a whole number ${range} (got ${shown(raw)}).`);
  }
  return value;
}

/** RFC 9110 token characters: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkHeader(name: string, value: string, original: string): void {
  if (!HEADER_NAME.test(name)) {
    throw optionError('headers', `name must be a plain token such as 'Content-Type' (got ${shown(original)}).`);
  }
  // A CR or LF would let one header smuggle another request line into every request autocannon sends.
  if (/[\r\n\0]/.test(value)) {
    throw optionError('headers', `value must not contain line breaks (got ${shown(original)}).`);
  }
}

/** Parses one CLI header argument, `'K: V'` or `'K:V'`, into a name and a trimmed value. */
export function parseHeader(line: string): [name: string, value: string] {
  const colon = line.indexOf(':');
  if (colon <= 0) {
    throw optionError('headers', `expects 'Name: value', e.g. --header 'Authorization: Bearer abc' (got ${shown(line)}).`);
  }
  const name = line.slice(0, colon).trim();
  const value = line.slice(colon + 1).trim();
  checkHeader(name, value, line);
  return [name, value];
}

function resolveHeaders(raw: LoadOptionsInput['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (raw === undefined) return headers;
  if (Array.isArray(raw)) {
    for (const line of raw as readonly string[]) {
      const [name, value] = parseHeader(line);
      headers[name] = value;
    }
    return headers;
  }
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'string') throw optionError('headers', `value of '${name}' must be a string (got ${shown(value)}).`);
    checkHeader(name, value, `${name}: ${value}`);
    headers[name] = value;
  }
  return headers;
}

function resolveMethod(raw: unknown): string {
  const method = typeof raw === 'string' ? raw.trim().toUpperCase() : raw;
  if (typeof method !== 'string' || !HTTP_METHODS.includes(method)) {
    throw optionError('method', `must be one of ${HTTP_METHODS.join(', ')} (got ${shown(raw)}).`);
  }
  return method;
}

function resolvePath(raw: unknown): string {
  if (typeof raw !== 'string' || !raw.startsWith('/') || /\s/.test(raw)) {
    throw optionError('path', `must start with '/' and contain no spaces, e.g. '/api/items?limit=10' (got ${shown(raw)}).`);
  }
  return raw;
}

function resolveUrl(raw: unknown): string {
  let parsed: URL | undefined;
  try { parsed = typeof raw === 'string' ? new URL(raw) : undefined; } catch { parsed = undefined; }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw optionError('url', `must be an http:// or https:// URL such as 'http://127.0.0.1:3000/api' (got ${shown(raw)}).`);
  }
  return parsed.href;
}

/**
 * Merges `partial` over the defaults and validates every field. Precedence for the target: an explicit
 * url, then an explicit port, then the port the launcher detected (`context.port`).
 * Throws HotpathError(InvalidOption) whose message names the flag and the fix; `details.setting` names
 * the VS Code setting for the editor front end.
 */
export function resolveLoadOptions(partial: LoadOptionsInput = {}, context: { port?: number } = {}): LoadOptions {
  const resolved: LoadOptions = {
    path: resolvePath(partial.path ?? DEFAULT_LOAD_OPTIONS.path),
    method: resolveMethod(partial.method ?? DEFAULT_LOAD_OPTIONS.method),
    headers: resolveHeaders(partial.headers),
    connections: wholeNumber('connections', partial.connections ?? DEFAULT_LOAD_OPTIONS.connections, 1),
    durationSeconds: wholeNumber('durationSeconds', partial.durationSeconds ?? DEFAULT_LOAD_OPTIONS.durationSeconds, 1),
    warmupSeconds: wholeNumber('warmupSeconds', partial.warmupSeconds ?? DEFAULT_LOAD_OPTIONS.warmupSeconds, 0),
    pipelining: wholeNumber('pipelining', partial.pipelining ?? DEFAULT_LOAD_OPTIONS.pipelining, 1),
    timeoutSeconds: wholeNumber('timeoutSeconds', partial.timeoutSeconds ?? DEFAULT_LOAD_OPTIONS.timeoutSeconds, 1),
  };

  const body = partial.body;
  if (body !== undefined) {
    if (typeof body !== 'string') throw optionError('body', `must be text (got ${shown(body)}).`);
    resolved.body = body;
  }

  if (partial.routes !== undefined && partial.routes.length > 0) resolved.routes = resolveRoutes(partial.routes, HTTP_METHODS);

  const url = partial.url;
  const port = partial.port ?? context.port;
  if (url !== undefined) resolved.url = resolveUrl(url);
  if (port !== undefined) resolved.port = wholeNumber('port', port, 1, 65535);
  if (resolved.url === undefined && resolved.port === undefined) {
    throw optionError('url', "or --port is needed: Hotpath could not tell where the app listens. Pass --url 'http://127.0.0.1:3000/' or --port 3000.");
  }
  return resolved;
}

/**
 * The URL load is sent to: the explicit url (its own path wins over `path`), else the app's port on
 * 127.0.0.1 plus the path. An IPv4 literal rather than 'localhost', which newer Node may resolve to ::1
 * while the app listens on IPv4 only.
 */
export function targetUrl(options: Pick<LoadOptions, 'url' | 'port' | 'path' | 'routes'>): string {
  if (options.routes?.length) {
    // Several routes: the origin is the target; each request carries its own path.
    const origin = options.url !== undefined ? new URL(options.url).origin : options.port !== undefined ? `http://127.0.0.1:${options.port}` : undefined;
    if (origin === undefined) throw optionError('url', 'or --port is needed to build the target URL.');
    return `${origin}${options.routes[0].path}`;
  }
  if (options.url !== undefined) return options.url;
  if (options.port === undefined) throw optionError('url', 'or --port is needed to build the target URL.');
  return `http://127.0.0.1:${options.port}${options.path}`;
}
