import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ErrorCode, type HotpathError } from '../../../src/core/common/errors';
import { readLoadFile } from '../../../src/core/load/loadFile';
import { HTTP_METHODS, resolveLoadOptions, targetUrl } from '../../../src/core/load/options';
import { describeRequests, parseLoadFile, parseRouteFlag, sequenceFor, weightedSequence } from '../../../src/core/load/routes';
import { runLoad } from '../../../src/core/load/runner';
import { startServer, type TestServer } from './testServer';

function throwsOption(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: HotpathError) => err.code === ErrorCode.InvalidOption && pattern.test(err.message));
}

describe('load routes: --request METHOD:PATH[:WEIGHT] and load files', () => {
  it('parses method, path and weight; the weight defaults to 1 and a path may contain colons', () => {
    assert.deepEqual(parseRouteFlag('GET:/orders:20', HTTP_METHODS), { method: 'GET', path: '/orders', weight: 20 });
    assert.deepEqual(parseRouteFlag('post:/login', HTTP_METHODS), { method: 'POST', path: '/login', weight: 1 });
    assert.deepEqual(parseRouteFlag('GET:/at?t=12:30:1', HTTP_METHODS), { method: 'GET', path: '/at?t=12:30', weight: 1 });
  });

  it('names the flag and the fix for every mistake', () => {
    throwsOption(() => parseRouteFlag('/orders', HTTP_METHODS), /METHOD:PATH\[:WEIGHT\]/);
    throwsOption(() => parseRouteFlag('FETCH:/orders', HTTP_METHODS), /method must be one of/);
    throwsOption(() => parseRouteFlag('GET:orders', HTTP_METHODS), /must start with '\/'/);
    throwsOption(() => parseRouteFlag('GET:/orders:0', HTTP_METHODS), /weight must be a whole number from 1/);
    throwsOption(() => resolveLoadOptions({ routes: ['GET:/a:5000'] }, { port: 80 }), /weight must be a whole number from 1 to 1000/);
  });

  it('reads a load file with headers and bodies; bad files say what is expected', () => {
    const routes = parseLoadFile(JSON.stringify({ requests: [{ path: '/orders', weight: 3 }, { method: 'post', path: '/login', headers: { 'Content-Type': 'application/json' }, body: { user: 'a' } }] }), 'load.json', HTTP_METHODS);
    assert.deepEqual(routes[0], { method: 'GET', path: '/orders', weight: 3 });
    assert.equal(routes[1].method, 'POST');
    assert.equal(routes[1].body, '{"user":"a"}');
    assert.deepEqual(routes[1].headers, { 'Content-Type': 'application/json' });
    throwsOption(() => parseLoadFile('{', 'load.json', HTTP_METHODS), /not valid JSON/);
    throwsOption(() => parseLoadFile('{"requests": []}', 'load.json', HTTP_METHODS), /has no requests/);
    throwsOption(() => parseLoadFile('[{"path": "/a", "headers": {"X": "a\\r\\nGET /evil"}}]', 'load.json', HTTP_METHODS), /line breaks/);
  });

  it('reads a load file from disk only when it is a regular file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-loadfile-'));
    try {
      const file = path.join(dir, 'load.json');
      fs.writeFileSync(file, JSON.stringify([{ path: '/a', weight: 2 }]));
      assert.deepEqual(await readLoadFile(file), [{ method: 'GET', path: '/a', weight: 2 }]);
      await assert.rejects(readLoadFile(dir), (err: HotpathError) => err.code === ErrorCode.InvalidOption && /not a regular file/.test(err.message));
      await assert.rejects(readLoadFile(path.join(dir, 'missing.json')), /does not exist/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('spreads routes by weight: exact shares over one cycle, a weight-1 route never bunched', () => {
    const seq = weightedSequence([20, 1, 3]);
    assert.equal(seq.length, 24);
    assert.deepEqual([0, 1, 2].map((r) => seq.filter((x) => x === r).length), [20, 1, 3]);
    // The three weight-3 requests are not next to each other.
    const at = seq.flatMap((x, i) => (x === 2 ? [i] : []));
    assert.ok(at[1] - at[0] > 2 && at[2] - at[1] > 2, JSON.stringify(seq));
    assert.deepEqual(weightedSequence([10, 20]), [1, 0, 1]);
    // Each connection starts elsewhere in the cycle, so rare routes do not hit the app at once.
    const starts = [0, 1, 2, 3].map((c) => sequenceFor(seq, c, 4).indexOf(1));
    assert.equal(new Set(starts).size, 4);
  });

  it('targets the origin with several routes (an explicit --url keeps only its origin)', () => {
    const options = resolveLoadOptions({ routes: ['GET:/a', 'GET:/b'], url: 'http://127.0.0.1:9/x?y=1' });
    assert.equal(targetUrl(options), 'http://127.0.0.1:9/a');
  });

  describe('a real mixed load against a loopback server', function () {
    this.timeout(30_000);
    let server: TestServer | undefined;
    afterEach(async () => { await server?.close(); server = undefined; });

    it('reports each route: its requests in proportion to its weight, its own latency and non-2xx count', async () => {
      server = await startServer((req, res) => {
        if (req.url === '/slow') { setTimeout(() => res.end('slow'), 30); return; }
        if (req.url === '/missing') { res.statusCode = 404; res.end('no'); return; }
        res.end('fast');
      });
      const options = resolveLoadOptions({ connections: 4, durationSeconds: 2, warmupSeconds: 0, routes: ['GET:/fast:8', 'GET:/slow:1', 'GET:/missing:1'] }, { port: server.port });
      const result = await runLoad(options);
      const routes = result.routes!;
      assert.deepEqual(routes.map((r) => r.path), ['/fast', '/slow', '/missing']);
      const total = routes.reduce((s, r) => s + r.requests, 0);
      assert.equal(total, result.requests.total);
      const fast = routes[0];
      const slow = routes[1];
      // Shares follow the weights within one cycle per connection.
      assert.ok(Math.abs(fast.requests - 8 * slow.requests) <= 8 * 4 + 8, `fast ${fast.requests}, slow ${slow.requests}`);
      // Chance of failing on a correct product: < 1e-6 — /slow answers from a 30 ms timer on top of what
      // /fast costs, on the same connections and event loop (a busy machine slows both alike); the shares
      // follow a per-connection cycle of the weights, not chance.
      assert.ok(slow.latencyMs.p50 >= 25, `slow p50 ${slow.latencyMs.p50}`);
      assert.ok(fast.latencyMs.p50 < slow.latencyMs.p50, `fast p50 ${fast.latencyMs.p50} < slow ${slow.latencyMs.p50}`);
      assert.equal(routes[2].non2xx, routes[2].requests);
      assert.equal(fast.non2xx, 0);
    });
  });
});

describe('describeRequests: what a load sends, in words', () => {
  it('one request: method and path (with its query) of the URL or path', () => {
    assert.equal(describeRequests('GET', 'http://127.0.0.1:3000/api/stores?near=1'), 'GET /api/stores?near=1');
    assert.equal(describeRequests('POST', '/orders'), 'POST /orders');
  });

  it('several routes: their count, the first three with their weights, never the origin as "GET /"', () => {
    const routes = [{ method: 'GET', path: '/orders', weight: 20 }, { method: 'GET', path: '/report', weight: 1 }, { method: 'GET', path: '/catalog', weight: 3 }, { method: 'POST', path: '/visit', weight: 1 }];
    assert.equal(describeRequests('GET', 'http://127.0.0.1:3000/', routes), '4 routes: GET /orders ×20, GET /report ×1, GET /catalog ×3, +1 more');
    assert.equal(describeRequests('GET', 'http://127.0.0.1:3000/', [{ method: 'GET', path: '/a' }]), '1 route: GET /a');
  });
});
