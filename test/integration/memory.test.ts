// Allocations, GC, the event loop and leaks on a real Express app (test/fixtures/npm-apps/orders-api)
// under real load, through the CLI as users run it, on every Node version the project supports (the
// CLI and the app both on the version under test):
// - a route that blocks the loop (/report, PBKDF2 on the request path, ~40 ms) at 1 request in 24,
//   while most of the load goes to /orders: the blocking line is named, and /orders' p99 shows it;
// - an allocation-heavy handler (/catalog): its function tops the allocation sites, and its bytes per
//   request prove that objects the GC already collected are counted (the runtime honours the flags);
// - allocations through inlining (/sales): a callee V8 inlined gets the bytes charged to its caller's
//   frame when nothing else there can allocate, and a frame where several can says so;
// - a per-request leak (/visit keeps every visit): growing, with the retaining line; with the fix
//   (AUDIT_LIMIT) stable, and the second check reads "stable now; was …";
// - baseline --leak, then verify after the fix: the growth rates are compared.
// Effects are large on purpose (tens of ms, KB per request); nothing here asserts a duration.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { marker, ROOT, runCliOn, waitForNoProcesses } from '../helpers/cli';
import { NODE_MATRIX, nodeFor } from '../helpers/nodeVersions';
import { EXIT_REGRESSION } from '../../src/cli/exitCodes';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'orders-api');
const lineWith = (rel: string, text: string) => fs.readFileSync(path.join(FIXTURE, rel), 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;

/** A copy of the app in a temporary folder (its node_modules linked): baselines and leak checks are stored beside the app. */
function appCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-orders-api-'));
  for (const entry of ['server.js', 'lib', 'package.json']) fs.cpSync(path.join(FIXTURE, entry), path.join(dir, entry), { recursive: true });
  fs.symlinkSync(path.join(FIXTURE, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return fs.realpathSync(dir);
}
const MIX = ['--request', 'GET:/orders:20', '--request', 'GET:/report:1', '--request', 'GET:/catalog:3'];
const LOAD = ['--duration', '4', '--warmup', '2', '--connections', '8', '--env', 'NODE_ENV=production', '--env', 'QUIET=1'];
const LEAK = ['--request', 'GET:/visit', '--rung', '1500', '--idle', '2', '--warmup', '2', '--connections', '8', '--env', 'NODE_ENV=production', '--env', 'QUIET=1'];


for (const [major] of NODE_MATRIX) {
  describe(`memory, GC and the event loop on a real Express app, Node ${major}`, function () {
    this.timeout(240_000);
    let node = process.execPath;
    let out: string;
    let APP: string;

    before(function () {
      node = nodeFor(this, major);
      out = fs.mkdtempSync(path.join(os.tmpdir(), `hotpath-memory-${major}-`));
      APP = appCopy();
    });
    after(() => {
      if (out) fs.rmSync(out, { recursive: true, force: true });
      if (APP) fs.rmSync(APP, { recursive: true, force: true });
    });

    async function cli(args: string[], extra: string[] = []): Promise<any> {
      const tag = marker();
      const run = await runCliOn(node, [...args, '--json', '--out', out, ...extra, '--', node, 'server.js', tag], { cwd: APP, timeoutMs: 200_000 });
      assert.deepEqual(await waitForNoProcesses(tag), [], 'no app process left behind');
      if (args[0] === 'verify' && run.code === EXIT_REGRESSION) {
        // verify's exit code is its throughput verdict, which a leak test does not control (2 short runs a
        // side on a shared machine): 3 is right when, and only when, the JSON says slower.
        const doc = run.json();
        assert.equal(doc.comparison.verdict, 'slower', `exit ${run.code} but verdict ${doc.comparison.verdict}`);
        const metrics = Object.entries(doc.comparison.metrics as Record<string, any>).map(([k, m]) => `${k} ×${m.ratio?.toFixed(3)} ${m.change}`);
        console.log(`      # verify exit 3 (slower: ${doc.comparison.moved.join(', ')}): ${metrics.join('; ')}`);
        return doc;
      }
      assert.equal(run.code, 0, run.stderr || run.stdout.slice(0, 2000));
      return run.json();
    }

    it('a route that blocks the loop is named in blockingLines, the other route\'s p99 shows it, the allocation-heavy handler tops the sites', async () => {
      // Chance of failing on a correct product: < 1e-6. Measured on a quiet machine (Node 20/22/24/26),
      // against what is asserted: 34–61 blocking episodes (≥ 3), 1,259–2,529 ms blocked on the PBKDF2 line
      // against 0 ms on all others (more), /orders p99 74–111 ms = 29–74× its p50 (≥ 20 ms and ≥ 3×),
      // catalogPage 163–173 KB per /catalog request (> 20 KB). Each /report call holds the loop ~40 ms
      // (PBKDF2, 200,000 rounds), so every one is an episode: the part of a turn the monitor's 20 ms tick is
      // sure of is at least the turn less 20 ms (with 80,000 rounds, 17 ms here, only 6–9 calls were). A
      // busy machine lengthens the PBKDF2 turns and the waits behind them; the ratios are properties of
      // the app (1 request in 24 holds the loop), not of the machine.
      const doc = await cli(['profile', '--memory', ...MIX, ...LOAD]);
      const routes = doc.load.routes;
      assert.deepEqual(routes.map((r: any) => `${r.method} ${r.path}`), ['GET /orders', 'GET /report', 'GET /catalog']);
      for (const r of routes) assert.ok(r.requests > 0 && r.non2xx === 0, JSON.stringify(r));

      // The event loop: /report's PBKDF2 call holds it; most of the blocked time is on that line.
      const loop = doc.eventLoop;
      const blocking = loop.blockingLines[0];
      assert.ok(blocking, JSON.stringify(loop).slice(0, 500));
      assert.equal(blocking.file, path.join(APP, 'lib', 'report.js'), JSON.stringify(loop.blockingLines.slice(0, 3)));
      assert.equal(blocking.line, lineWith('lib/report.js', 'crypto.pbkdf2Sync('));
      assert.equal(blocking.function, 'monthlyReport');
      assert.ok(blocking.episodes >= 3, `episodes ${blocking.episodes}`);
      const others = loop.blockingLines.slice(1).reduce((s: number, l: any) => s + l.blockedMs, 0);
      assert.ok(blocking.blockedMs > others, `report ${blocking.blockedMs} ms vs all other lines ${others} ms`);
      assert.ok(loop.longTasks.some((t: any) => t.function === 'monthlyReport' && t.line === blocking.line), JSON.stringify(loop.longTasks.slice(0, 5)));
      assert.ok(loop.delayMs.p99 > 0 && loop.utilization > 0 && loop.utilization <= 1, JSON.stringify(loop.delayMs));
      // The symptom is on the route the load mostly targets: /orders waits behind the reports.
      const orders = routes[0];
      console.log(`      # /orders p50 ${orders.latencyMs.p50} ms, p99 ${orders.latencyMs.p99} ms (×${(orders.latencyMs.p99 / orders.latencyMs.p50).toFixed(1)}); ${blocking.episodes} episodes, ${Math.round(blocking.blockedMs)} ms blocked on the PBKDF2 line vs ${Math.round(others)} ms elsewhere`);
      assert.ok(orders.latencyMs.p99 >= 20 && orders.latencyMs.p99 >= 3 * orders.latencyMs.p50, `/orders p50 ${orders.latencyMs.p50} ms, p99 ${orders.latencyMs.p99} ms`);

      // Allocations: catalogPage builds 600 objects per /catalog request.
      const a = doc.memory.allocations;
      assert.equal(a.includesCollected, true);
      assert.equal(a.samplingIntervalBytes, 32768);
      const top = a.sites[0];
      assert.equal(top.function, 'catalogPage', JSON.stringify(a.sites.slice(0, 4)));
      assert.equal(top.file, path.join(APP, 'lib', 'catalog.js'));
      assert.equal(top.line, lineWith('lib/catalog.js', 'function catalogPage'));
      assert.equal(top.category, 'user');
      // Only objects the GC already freed make this many bytes: the page is thrown away after each request.
      const perCatalogRequest = top.bytes / routes[2].requests;
      console.log(`      # catalogPage: ${Math.round(perCatalogRequest)} B per /catalog request`);
      assert.ok(perCatalogRequest > 20_000, `catalogPage allocates ${perCatalogRequest} B per /catalog request`);
      assert.ok(a.sites.some((s: any) => s.category === 'dependency' && s.package === 'express'), 'express\'s own allocations are sites of their own');
      assert.ok(fs.existsSync(a.heapProfilePath) && fs.existsSync(`${a.heapProfilePath}.html`), a.heapProfilePath);

      // GC during the window, from V8's record of each collection (--memory records the pauses).
      assert.equal(doc.memory.gcSource, 'gc-profiler');
      assert.ok(doc.memory.gcPauses.count > 0 && doc.memory.gcPauses.maxMs >= doc.memory.gcPauses.p50Ms, JSON.stringify(doc.memory.gcPauses));
      assert.ok(doc.memory.gcPct >= 0 && doc.memory.gcPct < 100);

      // The checklist says the loop is what limits this app, in words, with the usual fixes.
      const check = doc.checks.find((c: any) => c.id === 'loop-delay');
      assert.notEqual(check.status, 'pass', JSON.stringify(check));
      assert.match(check.advice, /monthlyReport \(report\.js:\d+\)/);
      assert.match(check.advice, /worker thread/);
    });

    it('allocations through inlining: bytes V8 charged to the caller\'s frame are placed on the inlined callee only where nothing else there can allocate', async () => {
      // /sales: bestRow, bestCaption and salesRows run as promise reactions (frames of their own, never
      // inlined into a caller), each with toRow (and toLabel) inlined in its 2000-iteration loop. V8
      // inlined toRow there in every run we made (5 per Node version): a tiny callee in a hot loop.
      const doc = await cli(['profile', '--memory', '--request', 'GET:/sales', ...LOAD, '--env', 'PORT=0']);
      const sites: any[] = doc.memory.allocations.sites;
      const named = (fn: string) => sites.find((x) => x.function === fn && x.file === path.join(APP, 'lib', 'sales.js'));
      const show = JSON.stringify(sites.slice(0, 5).map((x) => [x.function, x.bytesPerRequest, x.inlining]));
      // bestRow's own code allocates nothing: its frame's bytes are toRow's, and the site says where they ran.
      assert.equal(named('bestRow'), undefined, show);
      const toRow = named('toRow');
      assert.ok(toRow?.inlining?.ranInlinedInto?.some((i: any) => i.function === 'bestRow' && i.line === lineWith('lib/sales.js', 'function bestRow') && i.bytes > 0), show);
      assert.equal(toRow.line, lineWith('lib/sales.js', 'function toRow'));
      // Two inlined callees allocate in bestCaption: not placed, and the site names both.
      const caption = named('bestCaption');
      assert.deepEqual(caption?.inlining?.includes?.map((i: any) => i.function), ['toRow', 'toLabel'], show);
      assert.match(caption.inlining.notPlaced, /^toRow \(object literal, line \d+\) and toLabel \(template string, line \d+\) can each allocate/);
      // salesRows' own array grows beside toRow's rows: not placed either.
      const rows = named('salesRows');
      assert.match(rows?.inlining?.notPlaced ?? '', /^salesRows's own code \(array literal, line \d+\) and toRow \(object literal/, show);
      console.log(`      # Node ${major}: toRow ${toRow.bytesPerRequest} B/request (${toRow.inlining.ranInlinedInto.map((i: any) => `${i.function}, ${i.placement}`).join('; ')}); bestCaption ${caption.bytesPerRequest} B/request not placed`);
    });

    it('a per-request leak grows, with the retaining line; its fix is stable, and the next check says what changed', async function () {
      // Chance of failing on a correct product: < 1e-5. Measured (Node 20, load average 15): the leak
      // 410 B/request (95% CI 382 … 437; asserted: CI above 100), the fix 25 B/request (CI −44 … 93). The
      // fix reads "growing" only if its whole interval clears the 64 B/request floor: an estimate ~5
      // standard errors above the one measured. Heap noise is a few GC-timing jumps of tens of KB, over
      // 1,500 → 6,000 requests a few B/request each.
      if (major !== '20' && major !== '24') this.skip(); // the leak check does not depend on the V8 version the way tiers do: two are enough
      const leaky = await cli(['leak', ...LEAK, '--name', `visits-${major}`]);
      const l = leaky.leak;
      console.log(`      # leak: ${l.verdict}, ${l.bytesPerRequest} B/request (CI ${l.ciLow} … ${l.ciHigh})`);
      assert.equal(l.verdict, 'growing', JSON.stringify(l.rungs));
      assert.ok(l.ciLow > 100 && l.bytesPerRequest > 200, `${l.bytesPerRequest} B/request (CI ${l.ciLow} … ${l.ciHigh})`);
      assert.equal(l.rungs.length, 5);
      assert.deepEqual(l.rungs.map((r: any) => r.phase), ['warmup', 'load', 'load', 'load', 'idle']);
      const site = l.sites[0];
      assert.equal(site.file, path.join(APP, 'lib', 'audit.js'), JSON.stringify(l.sites.slice(0, 4)));
      assert.equal(site.line, lineWith('lib/audit.js', 'visits.push('));
      assert.equal(site.function, 'recordVisit');
      assert.ok(site.retainedBytesPerRequest > 100, JSON.stringify(site));
      assert.equal(leaky.checks[0].status, 'warn');

      const fixed = await cli(['leak', ...LEAK, '--name', `visits-${major}`, '--env', 'AUDIT_LIMIT=100']);
      console.log(`      # fixed: ${fixed.leak.verdict}, ${fixed.leak.bytesPerRequest} B/request (CI ${fixed.leak.ciLow} … ${fixed.leak.ciHigh})`);
      assert.equal(fixed.leak.verdict, 'stable', JSON.stringify(fixed.leak.rungs));
      assert.equal(fixed.previous.comparison.change, 'fixed');
      assert.match(fixed.previous.comparison.summary, /^stable now; was \+\d[\d.,]* (B|KB)\/request$/);
    });

    it('baseline --leak, then verify after the fix: the growth rates are compared', async function () {
      // Chance of failing on a correct product: < 1e-5, sized as the leak test above, with the same rungs
      // and idle period: the fixed app measured 9–25 B/request there (95% CI upper bounds 25–93), against
      // a 64 B/request floor its whole interval would have to clear. Was 1,000-request rungs and 1 s idle:
      // at load average 11 the fix once read "growing" (fewer requests per rung: a GC-timing jump of tens
      // of KB moves the slope more). verify's throughput verdict is not asserted (exit 3 is accepted with
      // a "slower" verdict, and logged).
      if (major !== '20') this.skip();
      const quick = ['--runs', '2', '--duration', '2', '--warmup', '1', '--connections', '8', '--request', 'GET:/visit', '--rung', '1500', '--idle', '2', '--env', 'NODE_ENV=production', '--env', 'QUIET=1', '--name', 'visits-verify'];
      const rate = (what: string, l: any) => console.log(`      # ${what}: ${l.verdict}, ${l.bytesPerRequest} B/request (CI ${l.ciLow} … ${l.ciHigh})`);
      const base = await cli(['baseline', '--leak', ...quick]);
      rate('baseline', base.leak);
      assert.equal(base.leak.verdict, 'growing');
      const verify = await cli(['verify', ...quick], []);
      rate('verify, not fixed', verify.leak);
      // Without the fix: still growing.
      assert.equal(verify.leakComparison.change, 'still-growing');
      const after = await cli(['verify', ...quick, '--env', 'AUDIT_LIMIT=100']);
      rate('verify, fixed', after.leak);
      assert.equal(after.leak.verdict, 'stable');
      assert.equal(after.leakComparison.change, 'fixed');
      assert.match(after.leakComparison.summary, /^stable now; was \+/);
    });
  });
}
