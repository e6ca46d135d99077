/**
 * Several routes in one load run, with weights: the symptom of a blocked event loop is often on a
 * different route than the cause, and a service's real traffic is a mix. Each autocannon connection
 * cycles through the same weighted sequence (smooth weighted round-robin, so a weight-1 route is spread
 * out rather than bunched), rotated per connection so rare routes do not hit the app all at once.
 */
import { ErrorCode, HotpathError } from '../common/errors';

/** One route of the mix, resolved and validated. */
export interface RouteSpec {
  method: string;
  path: string;
  /** Merged over the load's common headers. */
  headers?: Record<string, string>;
  body?: string;
  /** Relative share of the requests (a whole number ≥ 1). */
  weight: number;
}

/** What a caller may hand in: the CLI's `METHOD:PATH[:WEIGHT]` text, or an object (load file, settings). */
export type RouteInput = string | { method?: unknown; path?: unknown; headers?: unknown; body?: unknown; weight?: unknown };

/** Per-route results of a measured run. */
export interface RouteResult {
  method: string;
  path: string;
  /** Responses of any status. */
  requests: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
}

/** Longest weighted sequence (sum of weights after dividing by their common divisor). */
export const MAX_SEQUENCE = 10_000;
const MAX_WEIGHT = 1000;

function routeError(message: string, source: string): HotpathError {
  return new HotpathError(ErrorCode.InvalidOption, message, { option: 'routes', flag: '--request', source });
}

const shown = (v: unknown) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));

/**
 * `GET:/orders:20` → method GET, path /orders, weight 20; `POST:/login` → weight 1. A trailing
 * `:digits` is the weight, so a path that itself ends in `:123` needs an explicit weight (`GET:/a:123:1`).
 */
export function parseRouteFlag(text: string, methods: readonly string[]): RouteSpec {
  const colon = text.indexOf(':');
  if (colon <= 0) throw routeError(`--request expects METHOD:PATH[:WEIGHT], e.g. --request GET:/orders:20 (got ${shown(text)}).`, text);
  let rest = text.slice(colon + 1);
  let weight: unknown = 1;
  const w = /:(\d+)$/.exec(rest);
  if (w) {
    weight = Number(w[1]);
    rest = rest.slice(0, w.index);
  }
  return resolveRoute({ method: text.slice(0, colon), path: rest, weight }, methods, `--request ${text}`);
}

/** Validates one route object (from a load file or a setting); `where` names it in messages. */
export function resolveRoute(input: Exclude<RouteInput, string>, methods: readonly string[], where: string): RouteSpec {
  const method = typeof input.method === 'string' ? input.method.trim().toUpperCase() : input.method === undefined ? 'GET' : input.method;
  if (typeof method !== 'string' || !methods.includes(method)) throw routeError(`${where}: the method must be one of ${methods.join(', ')} (got ${shown(input.method)}).`, where);
  const path = input.path;
  if (typeof path !== 'string' || !path.startsWith('/') || /\s/.test(path)) {
    throw routeError(`${where}: the path must start with '/' and contain no spaces, e.g. '/orders?limit=10' (got ${shown(path)}).`, where);
  }
  const weight = input.weight === undefined ? 1 : typeof input.weight === 'string' && input.weight.trim() !== '' ? Number(input.weight) : input.weight;
  if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 1 || weight > MAX_WEIGHT) {
    throw routeError(`${where}: the weight must be a whole number from 1 to ${MAX_WEIGHT} (got ${shown(input.weight)}).`, where);
  }
  const route: RouteSpec = { method, path, weight };
  if (input.headers !== undefined) {
    if (typeof input.headers !== 'object' || input.headers === null || Array.isArray(input.headers)) throw routeError(`${where}: "headers" must be an object of header names to values.`, where);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(input.headers)) {
      if (typeof value !== 'string') throw routeError(`${where}: header '${name}' must be a string (got ${shown(value)}).`, where);
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) throw routeError(`${where}: header name ${shown(name)} must be a plain token such as 'Content-Type'.`, where);
      // A CR or LF would smuggle a second request line into every request.
      if (/[\r\n\0]/.test(value)) throw routeError(`${where}: header '${name}' must not contain line breaks.`, where);
      headers[name] = value;
    }
    route.headers = headers;
  }
  if (input.body !== undefined) {
    if (typeof input.body === 'string') route.body = input.body;
    else if (typeof input.body === 'object' && input.body !== null) route.body = JSON.stringify(input.body);
    else throw routeError(`${where}: "body" must be text or a JSON object (got ${shown(input.body)}).`, where);
  }
  return route;
}

/**
 * The routes of a JSON load file's text: `{"requests": [{method, path, headers, body, weight}, …]}` or
 * the bare array. `file` names it in messages.
 */
export function parseLoadFile(text: string, file: string, methods: readonly string[]): RouteSpec[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw routeError(`The load file ${file} is not valid JSON (${(err as Error).message}). Expected {"requests": [{"method": "GET", "path": "/orders", "weight": 20}, …]}.`, file);
  }
  const list = Array.isArray(doc) ? doc : (doc as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(list) || list.length === 0) {
    throw routeError(`The load file ${file} has no requests: expected {"requests": [{"method": "GET", "path": "/orders", "weight": 20}, …]}.`, file);
  }
  return list.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw routeError(`${file}: requests[${i}] must be an object with "path" (and "method", "headers", "body", "weight").`, file);
    return resolveRoute(entry as Exclude<RouteInput, string>, methods, `${file}: requests[${i}]`);
  });
}

export function resolveRoutes(inputs: readonly RouteInput[], methods: readonly string[]): RouteSpec[] {
  return inputs.map((r, i) => (typeof r === 'string' ? parseRouteFlag(r, methods) : resolveRoute(r, methods, `request ${i + 1}`)));
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Route indices in the order a connection sends them: weights divided by their common divisor, then
 * smooth weighted round-robin (nginx's), so route shares hold over any window of the sequence.
 */
export function weightedSequence(weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const divisor = weights.reduce((g, w) => gcd(g, w), 0) || 1;
  const reduced = weights.map((w) => w / divisor);
  const total = reduced.reduce((a, b) => a + b, 0);
  if (total > MAX_SEQUENCE) {
    throw routeError(`The request weights add up to ${total} after reduction (at most ${MAX_SEQUENCE}): use smaller numbers with the same ratio.`, 'weights');
  }
  const current = new Array<number>(reduced.length).fill(0);
  const out: number[] = [];
  for (let n = 0; n < total; n++) {
    let best = 0;
    for (let i = 0; i < reduced.length; i++) {
      current[i] += reduced[i];
      if (current[i] > current[best]) best = i;
    }
    current[best] -= total;
    out.push(best);
  }
  return out;
}

/** The sequence connection `c` of `connections` sends: rotated so rare routes are spread over time. */
export function sequenceFor(sequence: readonly number[], c: number, connections: number): number[] {
  if (sequence.length <= 1 || connections <= 1) return [...sequence];
  const shift = Math.floor((c * sequence.length) / connections) % sequence.length;
  return [...sequence.slice(shift), ...sequence.slice(0, shift)];
}

/** `GET /orders`: how a route is named in text. */
export function routeLabel(route: { method: string; path: string }): string {
  return `${route.method} ${route.path}`;
}

/**
 * What a load sends, for people: `GET /api/stores`, or with several routes `3 routes: GET /orders ×20,
 * GET /report ×1, GET /catalog ×3` (at most three named). One wording for the CLI and VS Code.
 */
export function describeRequests(method: string, url: string, routes?: ReadonlyArray<Pick<RouteSpec, 'method' | 'path'> & { weight?: number }>): string {
  if (routes && routes.length > 0) {
    const named = routes.slice(0, 3).map((r) => `${r.method} ${r.path}${r.weight !== undefined ? ` ×${r.weight}` : ''}`).join(', ');
    return `${routes.length} route${routes.length === 1 ? '' : 's'}: ${named}${routes.length > 3 ? `, +${routes.length - 3} more` : ''}`;
  }
  let target = url;
  try { const u = new URL(url); target = `${u.pathname}${u.search}`; } catch { /* a path already */ }
  return `${method} ${target}`;
}
