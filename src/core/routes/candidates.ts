/**
 * Which request paths to offer the load, best first: the one used last for this app, the URLs the app
 * printed when it started, then the routes it registered (plain paths before ones with parameters).
 * Pure: the VS Code picker, the CLI's default and the "only 404s" message all read this one list.
 */
import type { AnnouncedUrl, MappedRoute } from './announced';
import type { RegisteredRoute } from './expressRoutes';

export type RouteSource = 'last-used' | 'announced' | 'registered';

export interface RouteCandidate {
  method: string;
  /** Path and query as it would be loaded (parameters still as `:id` when `needsValue`). */
  path: string;
  /** Where it was seen, strongest first. */
  sources: RouteSource[];
  /** The path has parameters or wildcards (`/stores/:id`, `*`): a value must be filled in before loading. */
  needsValue: boolean;
}

export interface RouteFacts {
  /** URLs the app printed on the port Hotpath loads. */
  announced: readonly AnnouncedUrl[];
  /** Routes read from the framework's route table and from its startup log (NestJS's "Mapped {…}"). */
  registered: readonly RegisteredRoute[];
  mapped?: readonly MappedRoute[];
  lastUsed?: { path: string; method?: string };
}

/** Methods a load is never offered: they carry no work worth profiling. */
const SKIP_METHODS = new Set(['HEAD', 'OPTIONS', 'CONNECT', 'TRACE']);

/** Parameters (`:id`, `{/:x}`) and wildcards (`*`, `(.*)`) of Express 4/5 and NestJS path syntax. */
export function needsValue(path: string): boolean {
  return /[:*{}()]|\[/.test(path.split('?')[0]);
}

function rank(c: RouteCandidate): number {
  const s = new Set(c.sources);
  let r = 0;
  if (s.has('last-used')) r -= 1000;
  if (s.has('announced')) r -= 100;
  if (s.has('registered')) r -= 10;
  if (c.needsValue) r += 50;
  if (c.method !== 'GET') r += 20;
  return r;
}

export function routeCandidates(facts: RouteFacts): RouteCandidate[] {
  const byKey = new Map<string, RouteCandidate>();
  let order = 0;
  const position = new Map<RouteCandidate, number>();
  const add = (method: string, path: string, source: RouteSource) => {
    const m = method === 'ALL' ? 'GET' : method.toUpperCase();
    if (SKIP_METHODS.has(m) || !path.startsWith('/')) return;
    const key = `${m} ${path}`;
    let c = byKey.get(key);
    if (!c) {
      c = { method: m, path, sources: [], needsValue: needsValue(path) };
      byKey.set(key, c);
      position.set(c, order++);
    }
    if (!c.sources.includes(source)) c.sources.push(source);
  };
  if (facts.lastUsed) add(facts.lastUsed.method ?? 'GET', facts.lastUsed.path, 'last-used');
  for (const u of facts.announced) add('GET', u.path, 'announced');
  for (const r of facts.registered) add(r.method, r.path, 'registered');
  for (const r of facts.mapped ?? []) add(r.method, r.path.startsWith('/') ? r.path : `/${r.path}`, 'registered');
  // An announced URL with a query (`/products?limit=10`) is the same route as the registered path.
  for (const c of byKey.values()) {
    if (!c.sources.includes('announced') || !c.path.includes('?')) continue;
    const bare = byKey.get(`${c.method} ${c.path.split('?')[0]}`);
    if (bare && bare.sources.includes('registered') && !c.sources.includes('registered')) c.sources.push('registered');
  }
  return [...byKey.values()].sort((a, b) => rank(a) - rank(b) || position.get(a)! - position.get(b)!);
}

/**
 * What to load when nobody is asked (the CLI, launch.json): the path the app printed at startup, when
 * it printed exactly one; else undefined (the caller loads `/`).
 */
export function announcedDefault(candidates: readonly RouteCandidate[]): RouteCandidate | undefined {
  const announced = candidates.filter((c) => c.sources.includes('announced') && !c.needsValue);
  const paths = new Set(announced.map((c) => c.path));
  return paths.size === 1 ? announced[0] : undefined;
}

/** `GET /api/stores`, for messages. */
export function describeCandidate(c: Pick<RouteCandidate, 'method' | 'path'>): string {
  return `${c.method} ${c.path}`;
}
