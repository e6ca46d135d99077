/**
 * Which request the load sends (issue 14, item 1): what an app announces at startup, how the offered
 * paths are ordered, the picker's rows, and the "only 404s" check of the first load run.
 */
import { strict as assert } from 'node:assert';
import { scanLine, StartupAnnouncements } from '../../../src/core/routes/announced';
import { announcedDefault, routeCandidates } from '../../../src/core/routes/candidates';
import { readExpressRoutes } from '../../../src/core/routes/expressRoutes';
import { parseFastifyRoutes } from '../../../src/core/routes/appRoutes';
import type { LoadResult } from '../../../src/core/load/result';
import { routeMiss, routeMissError, type RequestOffer } from '../../../src/core/workflow/requestPath';
import { firstParameter, requestItems, requestPrompt } from '../../../src/vscode/targets/requestItems';
import { ErrorCode } from '../../../src/core/common/errors';
import { HOSTILE_NAMES } from '../../hostileText';

function loadResult(statusCodes: Record<string, number>): LoadResult {
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    url: 'http://127.0.0.1:1/', method: 'GET', connections: 1, pipelining: 1, durationSeconds: 1,
    requests: { total, perSecond: [total], mean: total, stddev: 0, min: total, max: total },
    latencyMs: { mean: 1, stddev: 0, p50: 1, p90: 1, p99: 1, max: 1 }, throughputBytesPerSec: { mean: 0, stddev: 0 },
    errors: 0, timeouts: 0, non2xx: Object.entries(statusCodes).filter(([c]) => !c.startsWith('2')).reduce((a, [, n]) => a + n, 0), statusCodes, loadGeneratorCpuPct: 1, warnings: [],
  };
}

describe('request path: what the app announces at startup', () => {
  it('finds URLs in log lines as apps print them, with their port and path', () => {
    assert.deepEqual(scanLine('store-finder listening on http://127.0.0.1:3006/api/stores').urls, [{ port: 3006, path: '/api/stores' }]);
    assert.deepEqual(scanLine('Server ready at http://localhost:8080').urls, [{ port: 8080, path: '/' }]);
    assert.deepEqual(scanLine('listening on http://[::1]:4000/graphql.').urls, [{ port: 4000, path: '/graphql' }], 'sentence punctuation is not part of the path');
    assert.deepEqual(scanLine('open http://0.0.0.0:3000/products?limit=10, or stop with Ctrl-C').urls, [{ port: 3000, path: '/products?limit=10' }]);
    assert.deepEqual(scanLine('\x1b[32minfo\x1b[39m: up on \x1b[4mhttp://127.0.0.1:5000/health\x1b[24m').urls, [{ port: 5000, path: '/health' }], 'colour codes do not stick to the URL');
    assert.deepEqual(scanLine('docs at https://example.com/docs').urls, [{ port: 443, path: '/docs' }]);
    assert.deepEqual(scanLine('no url here').urls, []);
  });

  it("reads NestJS's route log", () => {
    const line = '\x1b[32m[Nest] 4242  - \x1b[39m11/22/2026, 9:15:00 AM \x1b[32m    LOG\x1b[39m \x1b[33m[RouterExplorer] \x1b[39m\x1b[32mMapped {/api/primes, GET} route\x1b[39m\x1b[33m +2ms\x1b[39m';
    assert.deepEqual(scanLine(line).mapped, { method: 'GET', path: '/api/primes' });
  });

  it('collects across chunks (a line split between two reads), keeps only the first lines, and waits for the URL', async () => {
    const a = new StartupAnnouncements();
    a.push('booting…\nlistening on http://127.0.0.1:30');
    assert.deepEqual(a.on(3006), []);
    const settled = a.settle(3006, 5000);
    a.push('06/api/stores\n');
    await settled;
    assert.deepEqual(a.on(3006), [{ port: 3006, path: '/api/stores' }]);
    const t = Date.now();
    await a.settle(9999, 50);
    // Chance of failing on a correct product: < 1e-6 — a 50 ms grace timer; 2 s is for one that waited for
    // an URL that never comes.
    assert.ok(Date.now() - t < 2000, 'gives up after its grace period');
    const b = new StartupAnnouncements();
    b.push('x\n'.repeat(5000) + 'late http://127.0.0.1:1/late\n');
    assert.deepEqual(b.on(1), [], 'a chatty app: only startup lines are read');
  });
});

describe('request path: the offer', () => {
  const facts = {
    announced: [{ port: 3006, path: '/api/stores' }],
    registered: [
      { method: 'GET', path: '/api/stores/:id' }, { method: 'POST', path: '/api/stores' }, { method: 'GET', path: '/api/stores' },
      { method: 'HEAD', path: '/api/stores' }, { method: 'ALL', path: '/health' },
    ],
  };

  it('orders: last used, announced (and registered), registered plain paths, then parameters and other methods', () => {
    const list = routeCandidates(facts).map((c) => `${c.method} ${c.path} [${c.sources.join(',')}]${c.needsValue ? ' *' : ''}`);
    assert.deepEqual(list, [
      'GET /api/stores [announced,registered]',
      'GET /health [registered]',
      'POST /api/stores [registered]',
      'GET /api/stores/:id [registered] *',
    ]);
    const withLast = routeCandidates({ ...facts, lastUsed: { path: '/health', method: 'GET' } });
    assert.equal(withLast[0].path, '/health');
    assert.deepEqual(withLast[0].sources, ['last-used', 'registered']);
  });

  it('the default without a front end: the one URL the app printed, else none (the caller loads /)', () => {
    assert.equal(announcedDefault(routeCandidates(facts))?.path, '/api/stores');
    assert.equal(announcedDefault(routeCandidates({ announced: [], registered: facts.registered })), undefined, 'routes alone are not guessed from');
    assert.equal(announcedDefault(routeCandidates({ announced: [{ port: 1, path: '/' }, { port: 1, path: '/docs' }], registered: [] })), undefined, 'two printed paths: ambiguous');
  });

  it('picker rows: ready-to-load paths pick at once, a path with a parameter opens the input with it selected, then / and "Enter a path…"', () => {
    const offer: RequestOffer = { port: 3006, candidates: routeCandidates(facts), routeTable: { framework: 'express', routes: 5, unknownPrefix: 0, truncated: false } };
    const items = requestItems(offer);
    assert.equal(items[0].label, 'GET /api/stores');
    assert.match(items[0].description!, /printed by the app at startup · Express route/);
    assert.deepEqual(items[0].choice, { path: '/api/stores', method: 'GET' });
    const param = items.find((i) => i.label === 'GET /api/stores/:id')!;
    assert.equal(param.choice, undefined);
    assert.deepEqual(param.edit, { value: '/api/stores/:id', method: 'GET', selection: [12, 15] });
    assert.deepEqual(items.slice(-2).map((i) => i.label), ['GET /', '$(edit) Enter a path…']);
    assert.match(requestPrompt(offer).placeHolder, /^The app listens on port 3006 · remembered for next runs$/);
    assert.ok(requestPrompt({ port: 1, candidates: [] }, { method: 'GET', path: '/', status: 404, responses: 12345 }).placeHolder.length <= 75, 'fits the quick input');
    // After a 404 on GET /: that row is gone and the title says what happened.
    const retry = requestItems({ port: 3006, candidates: [] }, { method: 'GET', path: '/', status: 404, responses: 1203 });
    assert.deepEqual(retry.map((i) => i.label), ['$(edit) Enter a path…']);
    assert.match(requestPrompt(offer, { method: 'GET', path: '/', status: 404, responses: 1203 }).title, /GET \/ got 404/);
    assert.deepEqual(firstParameter('/a/:id/b'), [3, 6]);
    assert.deepEqual(firstParameter('/files/*splat'), [7, 13]);
  });

  it('hostile paths from an app become plain one-line labels (no icons, no line breaks)', () => {
    for (const name of HOSTILE_NAMES) {
      const items = requestItems({ port: 1, candidates: routeCandidates({ announced: [], registered: [{ method: 'GET', path: `/${name}` }] }) });
      for (const i of items.slice(0, -1)) {
        assert.doesNotMatch(i.label, /\$\((?!\u200b)|[\r\n\u2028\u2029]/, JSON.stringify(i.label));
        assert.doesNotMatch(i.description ?? '', /\$\(|[\r\n]/);
      }
    }
  });
});

describe('request path: the first load run answered only with 404', () => {
  it('is a miss only when every response was 404 or 405', () => {
    assert.deepEqual(routeMiss(loadResult({ 404: 1200 }), { method: 'GET', path: '/' }), { method: 'GET', path: '/', status: 404, responses: 1200 });
    assert.equal(routeMiss(loadResult({ 405: 10, 404: 2 }), { method: 'POST', path: '/x' })?.status, 405);
    assert.equal(routeMiss(loadResult({ 404: 1000, 200: 1 }), { method: 'GET', path: '/' }), undefined, 'one real answer: the path exists');
    assert.equal(routeMiss(loadResult({ 500: 100 }), { method: 'GET', path: '/' }), undefined, 'server errors are LOAD_ERRORS, not a wrong path');
    assert.equal(routeMiss(loadResult({}), { method: 'GET', path: '/' }), undefined);
    assert.equal(routeMiss(undefined, { method: 'GET', path: '/' }), undefined, 'no warm-up, nothing to judge');
  });

  it('the error names what was answered and the paths the app serves', () => {
    const offer: RequestOffer = { port: 3006, candidates: routeCandidates({ announced: [{ port: 3006, path: '/api/stores' }], registered: [{ method: 'GET', path: '/api/stores' }, { method: 'GET', path: '/' }] }) };
    const err = routeMissError({ method: 'GET', path: '/', status: 404, responses: 1203 }, offer);
    assert.equal(err.code, ErrorCode.RouteNotFound);
    assert.match(err.message, /Every request of the warm-up \(1,203\) to GET \/ was answered 404 Not Found/);
    assert.match(err.message, /The app serves GET \/api\/stores \(printed at startup\): pass one with --path/);
    assert.doesNotMatch(err.message, /serves .*GET \/[,:]/, 'not the path that failed');
  });
});

describe('request path: the Express route table (read inside the app by the preload)', () => {
  // Shapes as Express 4 (app._router, regexp mount paths) and Express 5 / router 2 (app.router getter, rawPath) keep them.
  const route = (path: unknown, methods: Record<string, boolean>) => ({ route: { path, methods } });
  it('Express 4: routes, nested routers through their mount regexp, app.all', () => {
    const nested = Object.assign(function router() { /* express router */ }, { stack: [route('/', { get: true }), route('/:id', { get: true, put: true })] });
    const app = Object.assign(function app() { /* express app */ }, {
      _router: { stack: [
        { name: 'query', handle: (): undefined => undefined, regexp: { source: '^\\/?(?=\\/|$)', fast_slash: true } },
        route('/api/stores', { get: true, post: true }),
        { name: 'router', handle: nested, regexp: { source: '^\\/api\\/orders\\/?(?=\\/|$)' }, keys: [] },
        route('*', { _all: true }),
      ] },
    });
    const table = readExpressRoutes([app])!;
    assert.deepEqual(table.routes.map((r) => `${r.method} ${r.path}`), ['GET /api/stores', 'POST /api/stores', 'GET /api/orders', 'GET /api/orders/:id', 'PUT /api/orders/:id', 'ALL /*']);
    assert.equal(table.unknownPrefix, 0);
  });

  it("Express 5: the router behind Express's own getter, rawPath mount prefixes; an unknown prefix is counted, not guessed", () => {
    const nested = Object.assign(function router() { /* router 2 */ }, { stack: [route('/', { get: true })] });
    const old = Object.assign(function router() { /* router 2.0: no rawPath */ }, { stack: [route('/x', { get: true })] });
    const router = { stack: [route('/api/stores', { get: true }), { handle: nested, rawPath: '/api/regions/', slash: false }, { handle: old, slash: false }] };
    const app = function app() { /* express 5 app */ };
    Object.defineProperty(app, 'router', { configurable: true, enumerable: true, get: function getrouter() { return router; } });
    const table = readExpressRoutes([app])!;
    assert.deepEqual(table.routes.map((r) => `${r.method} ${r.path}`), ['GET /api/stores', 'GET /api/regions']);
    assert.equal(table.unknownPrefix, 1);
  });

  it("never runs an app's own getter, and ignores listeners that are not Express apps", () => {
    let ran = false;
    const sneaky = function app() { /* not express */ };
    Object.defineProperty(sneaky, 'router', { get() { ran = true; return { stack: [] }; } });
    Object.defineProperty(sneaky, '_router', { get() { ran = true; return { stack: [] }; } });
    assert.equal(readExpressRoutes([sneaky, () => undefined, null, 42]), undefined);
    assert.equal(ran, false);
  });

  it('stays bounded on a huge or cyclic router', () => {
    const cyclic: { stack: unknown[] } & (() => void) = Object.assign(function r() { /* */ }, { stack: [] as unknown[] });
    cyclic.stack.push({ handle: cyclic, slash: true }, ...Array.from({ length: 300 }, (_, i) => route(`/r${i}`, { get: true })));
    const app = Object.assign(function app() { /* */ }, { _router: { stack: [{ handle: cyclic, regexp: { fast_slash: true } }] } });
    const table = readExpressRoutes([app])!;
    assert.ok(table.routes.length <= 200 && table.truncated);
  });
});

describe('request path: the Fastify route table (printRoutes, as Fastify 5.12 prints it)', () => {
  it('joins each node to its ancestors; nodes without methods are only prefixes', () => {
    const printed = '├── /api/stores (GET, HEAD, POST)\n│   └── /:id (GET, HEAD)\n├── /health (GET, HEAD)\n└── /v2/\n    ├── users (GET, HEAD)\n    └── orders/:id (GET)\n';
    assert.deepEqual(parseFastifyRoutes(printed).routes.map((r) => `${r.method} ${r.path}`), [
      'GET /api/stores', 'HEAD /api/stores', 'POST /api/stores', 'GET /api/stores/:id', 'HEAD /api/stores/:id', 'GET /health', 'HEAD /health', 'GET /v2/users', 'HEAD /v2/users', 'GET /v2/orders/:id',
    ]);
    assert.deepEqual(parseFastifyRoutes('not a tree\n').routes, []);
  });
});
