// Which request the load sends, on real apps (issue 14, item 1): the route tables the preload reads in
// Express 4, Express 5, NestJS-on-Express and Fastify 5 apps, the URL an app prints being loaded when no --path is
// given, and a warm-up answered only with 404 stopping the run with the paths the app serves.
//
// test-lane: quick — core paths on this machine's Node, in seconds: part of `npm run test:quick`.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { neverCancelled } from '../../src/core/common/cancellation';
import { launchTarget } from '../../src/core/target/launcher';
import { waitForHttpReady } from '../../src/core/target/readiness';
import { offerFor } from '../../src/core/workflow/requestPath';
import { marker, QUICK_LOAD, ROOT, runCli, waitForNoProcesses } from '../helpers/cli';

const APPS = path.join(ROOT, 'test', 'fixtures', 'npm-apps');

describe('request path on real apps', function () {
  this.timeout(120_000);
  let out: string;
  before(() => { out = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-request-')); });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  const apps = [
    { dir: 'catalog-api', command: ['node', 'server.js'], framework: 'Express 4', route: 'GET /products', printed: '/products' },
    { dir: 'store-finder', command: ['node', 'server.js'], framework: 'Express 5', route: 'GET /api/stores', printed: '/api/stores' },
    { dir: 'nest-primes', command: ['node', 'dist/main.js'], framework: 'NestJS 11 on Express', route: 'GET /primes', printed: '/primes' },
    { dir: 'orders-fastify', command: ['node', 'server.js'], framework: 'Fastify 5', route: 'GET /v1/orders', printed: '/v1/orders', table: 'fastify' },
  ];
  for (const app of apps) {
    it(`${app.framework} (${app.dir}): the preload reads the route table; the printed URL and the route come first`, async () => {
      const mark = marker();
      const target = await launchTarget({ command: [...app.command, mark], cwd: path.join(APPS, app.dir), env: { PORT: '0' }, mode: 'http' }, neverCancelled);
      try {
        const ready = await waitForHttpReady(target, { timeoutMs: 30_000, token: neverCancelled });
        const offer = await offerFor(target, ready);
        assert.equal(offer.routeTable?.framework, app.table ?? 'express', `${app.dir}: a route table was read`);
        const first = offer.candidates[0];
        assert.equal(`${first.method} ${first.path}`, app.route, JSON.stringify(offer.candidates));
        assert.deepEqual(first.sources, ['announced', 'registered']);
        assert.ok(!offer.candidates.some((c) => c.method === 'GET' && c.path === '/'), 'no route at / was invented');
        if (app.table === 'fastify') {
          assert.deepEqual(offer.candidates.map((c) => `${c.method} ${c.path}`), ['GET /v1/orders', 'POST /v1/orders', 'GET /v1/orders/:id'], 'plugin prefixes included, HEAD left out');
        }
      } finally {
        await target.stop();
      }
      assert.deepEqual(await waitForNoProcesses(mark), []);
    });
  }

  it('no --path: the URL the app printed is loaded (an Express 5 app whose only route is /api/stores)', async () => {
    const mark = marker();
    const run = await runCli(['profile', '--json', ...QUICK_LOAD, '--no-v8', '--env', 'NODE_ENV=production', '--out', out, '--', 'node', 'server.js', mark], { cwd: path.join(APPS, 'store-finder') });
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    assert.equal(doc.loadOptions.path, '/api/stores');
    assert.match(doc.load.url, /^http:\/\/127\.0\.0\.1:\d+\/api\/stores$/);
    assert.deepEqual(Object.keys(doc.load.statusCodes), ['200'], 'every response was the real route');
    assert.ok(doc.hotspots.some((h: any) => h.file.endsWith(path.join('store-finder', 'lib', 'stores.js'))), 'the profile is of the store ranking, not of a 404 page');
    assert.deepEqual(await waitForNoProcesses(mark), []);
  });

  it('a path the app does not serve: the warm-up gets only 404s, nothing is profiled, the error names the real route', async () => {
    const mark = marker();
    const missOut = path.join(out, 'miss');
    const run = await runCli(['profile', '--json', '--path', '/', ...QUICK_LOAD, '--no-v8', '--out', missOut, '--', 'node', 'server.js', mark], { cwd: path.join(APPS, 'store-finder') });
    assert.equal(run.code, 1, run.stderr);
    const doc = run.json();
    assert.equal(doc.error.code, 'ROUTE_NOT_FOUND');
    assert.match(doc.error.message, /to GET \/ was answered 404 Not Found/);
    assert.match(doc.error.message, /The app serves GET \/api\/stores \(printed at startup\)/);
    assert.match(run.stderr, /hotpath: Every request of the warm-up/);
    assert.ok(!fs.existsSync(missOut) || fs.readdirSync(missOut).length === 0, 'no profile was saved');
    assert.deepEqual(await waitForNoProcesses(mark), []);
  });
});
