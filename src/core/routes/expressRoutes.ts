/**
 * Which routes an Express app registered (Express 4 and 5, and NestJS on Express, which registers its
 * controllers' routes on the Express app): read by the preload from the server that just started
 * listening, so the load can be offered a path the app really serves. Runs inside the user's process:
 * it only reads plain properties of the app's router (no getters of the app's own, no calls into app
 * code), walks a bounded number of layers, and gives up quietly on anything it does not recognise.
 * Self-contained on purpose (bundled into the preload): no imports.
 */

export interface RegisteredRoute {
  /** Upper case; `ALL` for app.all(). */
  method: string;
  /** As registered, mount prefixes included: `/api/stores`, `/api/stores/:id`. */
  path: string;
}

export interface RouteTable {
  framework: 'express' | 'fastify';
  routes: RegisteredRoute[];
  /** Routes of routers mounted under a prefix this router version does not keep (Express 5 before router 2.2). */
  unknownPrefix: number;
  /** More routes than Hotpath keeps. */
  truncated: boolean;
}

const MAX_ROUTES = 200;
const MAX_LAYERS = 5000;
const MAX_DEPTH = 6;

interface LayerLike {
  route?: { path?: unknown; methods?: Record<string, unknown> };
  handle?: { stack?: unknown };
  name?: unknown;
  regexp?: { source?: unknown; fast_slash?: unknown };
  keys?: Array<{ name?: unknown }>;
  rawPath?: unknown;
  slash?: unknown;
}

/** A plain data property (never a getter: reading must not run code). */
function own(object: unknown, key: string): unknown {
  if ((typeof object !== 'object' && typeof object !== 'function') || object === null) return undefined;
  const d = Object.getOwnPropertyDescriptor(object, key);
  return d && 'value' in d ? d.value : undefined;
}

/**
 * The router stack of an Express app: Express 4 keeps it in `app._router` (a data property); Express 5
 * creates `app.router` lazily behind a getter of Express's own, so only an app that already has its
 * router (it registered a route or middleware) is read — through Express's getter, which then returns it.
 */
function appStack(app: unknown): unknown[] | undefined {
  const v4 = own(app, '_router');
  const v4Stack = own(v4, 'stack');
  if (Array.isArray(v4Stack)) return v4Stack;
  const descriptor = typeof app === 'function' ? Object.getOwnPropertyDescriptor(app, 'router') : undefined;
  if (!descriptor || typeof descriptor.get !== 'function' || descriptor.get.name !== 'getrouter') return undefined;
  const router = descriptor.get.call(app);
  const stack = own(router, 'stack');
  return Array.isArray(stack) ? stack : undefined;
}

/** An Express 4 mount regexp (`/^\/api\/?(?=\/|$)/i`) back to its path (`/api`); undefined when it is not a plain one. */
function mountPathFromRegexp(layer: LayerLike): string | undefined {
  const regexp = layer.regexp;
  if (!regexp) return undefined;
  if (regexp.fast_slash) return '';
  let source = typeof regexp.source === 'string' ? regexp.source : '';
  source = source.replace(/^\^/, '').replace(/\\\/\?\(\?=\\\/\|\$\)$/, '');
  let k = 0;
  source = source.replace(/\(\?:\(\[\^\\\/\]\+\?\)\)/g, () => `:${String(layer.keys?.[k++]?.name ?? 'param')}`);
  if (/[()[\]*+?|^$]/.test(source.replace(/\\./g, ''))) return undefined;
  return source.replace(/\\(.)/g, '$1');
}

/** The prefix a nested router is mounted at, or undefined when this router version does not keep it. */
function mountPath(layer: LayerLike): string | undefined {
  if (layer.slash === true) return '';
  if (typeof layer.rawPath === 'string') return layer.rawPath === '/' ? '' : layer.rawPath.replace(/\/+$/, '');
  if (layer.regexp) return mountPathFromRegexp(layer);
  return undefined;
}

function join(prefix: string, path: string): string {
  const joined = `${prefix}${path.startsWith('/') ? '' : '/'}${path}`;
  return joined.length > 1 ? joined.replace(/\/+$/, '') || '/' : joined;
}

/** The route table of the `request` listener of a server, when that listener is an Express app. */
export function readExpressRoutes(requestListeners: readonly unknown[]): RouteTable | undefined {
  let stack: unknown[] | undefined;
  for (const listener of requestListeners) {
    stack = appStack(listener);
    if (stack) break;
  }
  if (!stack) return undefined;
  const table: RouteTable = { framework: 'express', routes: [], unknownPrefix: 0, truncated: false };
  const seen = new Set<string>();
  let layers = 0;
  const walk = (items: unknown[], prefix: string, depth: number): void => {
    for (const item of items) {
      if (++layers > MAX_LAYERS || table.routes.length >= MAX_ROUTES) { table.truncated = true; return; }
      const layer = item as LayerLike;
      const route = layer.route;
      if (route && typeof route === 'object') {
        const paths = (Array.isArray(route.path) ? route.path : [route.path]).filter((p): p is string => typeof p === 'string');
        const methods = Object.keys(route.methods ?? {}).filter((m) => route.methods![m]).map((m) => (m === '_all' ? 'ALL' : m.toUpperCase()));
        for (const p of paths) for (const method of methods) {
          const path = join(prefix, p);
          const key = `${method} ${path}`;
          if (!seen.has(key)) { seen.add(key); table.routes.push({ method, path }); }
        }
        continue;
      }
      const nested = layer.handle && own(layer.handle, 'stack');
      if (!Array.isArray(nested) || depth >= MAX_DEPTH) continue;
      const mount = mountPath(layer);
      if (mount === undefined) { table.unknownPrefix++; continue; }
      walk(nested, join(prefix, mount || '/').replace(/^\/$/, ''), depth + 1);
    }
  };
  walk(stack, '', 0);
  return table;
}
