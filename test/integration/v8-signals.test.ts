import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, CLI, marker, ROOT, waitForNoProcesses } from '../helpers/cli';
import { freePort } from '../helpers/freePort';
import { NODE_MATRIX, nodeFor } from '../helpers/nodeVersions';

// V8's signals (tier, deopts, inlining) on Node 20 (this machine's), 22, 24 and 26, with the CLI itself
// running on the version under test and the target app too. `npm test`'s pretest installs 22, 24 and 26
// (scripts/ensure-node-versions.js); HOTPATH_NODE_VERSIONS=skip runs Node 20 only.

const V8_APPS = path.join(APPS, 'v8');
const SERVER = path.join(V8_APPS, 'signals-server.js');
const SCRIPT = path.join(V8_APPS, 'signals-script.js');
const INVOICE = path.join(V8_APPS, 'lib', 'invoice.js');
/**
 * `--limit 100`: the assertions are about renderInvoice's V8 signals, not its rank; in 100 rows it needs
 * only samples of its own (a function is a hotspot by its own time, and time in its inlinees is theirs).
 * Chance of that failing on a correct product: below 1e-6 per use. Sizing: renderInvoice's own loop
 * (invoice.js:30) gives it 21–25% of the window's samples on an idle machine (417–501 of ~2,000, 4 runs
 * on Node 22) and 23–29% on a starved one (12 processes burning both cores, 6 runs: 341–929 samples
 * in the window). P(no own sample in n) = 0.79^n: below 1e-6 from n = 60. Before that loop its own
 * share was 2.6% (the rest of its frame is inlined scale and lineTotal): 0.974^341 = 1e-4, and a
 * clean-clone run (Node 22, a busy shared lane) once saw renderInvoice missing from the hotspots.
 */
const LOAD = ['--limit', '100', '--duration', '2', '--warmup', '2', '--connections', '4'];

interface Run { code: number | null; stdout: string; stderr: string; json(): any }

function runCliOn(node: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`CLI timed out: ${args.join(' ')}\n${stderr}`)); }, 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, json: () => { try { return JSON.parse(stdout); } catch { throw new Error(`not JSON (exit ${code}):\n${stdout}\n${stderr}`); } } });
    });
  });
}

const hotspot = (doc: any, name: string) => doc.hotspots.find((h: any) => h.function === name);

/** Whether something accepts connections on 127.0.0.1:port. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/**
 * The hot function, its deopt at a known line with a known reason, and what was inlined into it.
 * Chance of failing on a correct product: < 1/1000 per use (launch, report, script, first attach, on each
 * Node version). Only renderInvoice's presence among the hotspots is sampled (see LOAD's `--limit`); the
 * rest is V8's own trace and status. The one outcome V8 could
 * vary is the tier at the window's end: the shape switch (SWITCH_MS, 1.5 s after the first request)
 * deopts renderInvoice "wrong map" during the warm-up, and the window runs at least 2.5 s past it, in
 * which every request runs its 20,000-iteration loop: V8 re-optimizes it within a few requests. Optimized at the end in every launch, report, script and first-attach run of the
 * last cycle (about 10 clean-clone runs × 4 Node versions); the second attach, whose window is shorter
 * and follows an idle gap, is asserted differently (see the attach test).
 */
function assertInvoiceSignals(doc: any, where: string): void {
  const h = hotspot(doc, 'renderInvoice');
  assert.ok(h?.v8, `${where}: renderInvoice is a hotspot with V8 signals: ${JSON.stringify(doc.hotspots.map((x: any) => [x.function, x.selfMs]))}; requests ${doc.load?.requests?.total}`);
  assert.ok(['TurboFan', 'Maglev'].includes(h.v8.tier), `${where}: optimized, got ${h.v8.tier}`);
  assert.ok(h.v8.optimizations >= 1);
  const wrongMap = h.v8.deopts.find((d: any) => d.reason === 'wrong map' && !d.osr);
  assert.ok(wrongMap, `${where}: the shape change deoptimizes it: ${JSON.stringify(h.v8.deopts)}`);
  assert.equal(wrongMap.file, INVOICE);
  assert.equal(wrongMap.line, 13, 'item.price in lineTotal, inlined into renderInvoice');
  assert.match(wrongMap.inlinedFrom, /^lineTotal \(.*lib\/invoice\.js:12\)$/);
  assert.match(wrongMap.explanation.title, /shape/);
  assert.ok(h.v8.inlined.some((s: string) => /^scale \(.*lib\/scale\.js:3\)$/.test(s)), `${where}: scale() from another file is inlined: ${JSON.stringify(h.v8.inlined)}`);
  assert.ok(h.v8.inlined.some((s: string) => s.startsWith('lineTotal (')));
}

/**
 * auditTrail() runs under a breakpoint: interpreted all run long, and invisible to the CPU profile.
 * Chance of failing on a correct product: 0 in practice — V8 marks a function under a breakpoint for
 * optimization thousands of times a second under load and never compiles it; 20 marks are the threshold.
 */
function assertInterpretedUnderBreakpoint(doc: any, where: string): void {
  const f = doc.v8.findings?.find((x: any) => x.id === 'V8_HOT_FUNCTION_NEVER_COMPILED' && /auditTrail/.test(x.title));
  assert.ok(f, `${where}: ${JSON.stringify(doc.v8)}`);
  assert.match(f.text, /signals-server\.js:21\b.*Ignition/);
  assert.ok(!hotspot(doc, 'auditTrail'), 'V8\'s profiler charges its time to the calling line');
  assert.equal(doc.checks.find((c: any) => c.id === 'debugger').status, 'warn');
}

for (const [major, label] of NODE_MATRIX) {
  describe(`V8 signals on Node ${major} (${label})`, function () {
    this.timeout(180_000);
    let node = process.execPath;
    let out: string;
    let launchDoc: any;

    before(function () {
      node = nodeFor(this, major);
      if (major === '20') assert.match(process.version, /^v20\./, 'this machine runs Node 20');
      out = fs.mkdtempSync(path.join(os.tmpdir(), `hotpath-v8-${major}-`));
    });
    after(() => { if (out) fs.rmSync(out, { recursive: true, force: true }); });

    it('launch: reports the deopt (reason, line), the inlining and the interpreted function; saves them with the profile', async () => {
      const tag = marker();
      const run = await runCliOn(node, ['profile', ...LOAD, '--json', '--out', out, '--', node, SERVER, tag]);
      assert.equal(run.code, 0, run.stderr);
      const doc = launchDoc = run.json();
      assert.equal(doc.v8.collected, true, JSON.stringify(doc.v8));
      assert.match(doc.v8.nodeVersion, new RegExp(`^v${major}\\.`));
      assert.equal(doc.v8.tiers.includes('Maglev'), Number(major) >= 24, 'Maglev only where V8 was built with it (Node 24 and later)');
      assertInvoiceSignals(doc, 'launch');
      assertInterpretedUnderBreakpoint(doc, 'launch');
      assert.deepEqual(doc.checks.map((c: any) => c.id), ['node-env', 'sampling-interval', 'debugger', 'source-maps', 'v8-flags', 'load-generator', 'stability', 'target-cpu', 'gc-share', 'loop-delay']);
      assert.ok(fs.existsSync(`${doc.profilePath}.v8.json`), 'signals saved next to the profile');
      assert.match(fs.readFileSync(doc.flamegraphPath, 'utf8'), /functions\.extras\.tier/, 'the flamegraph carries the tiers');
      assert.deepEqual(await waitForNoProcesses(tag), [], 'no target process left behind');
    });

    it('report: shows the saved signals again for the saved profile', async () => {
      assert.ok(launchDoc, 'needs the launch run');
      const run = await runCliOn(node, ['report', '--json', '--limit', '100', launchDoc.profilePath]);
      assert.equal(run.code, 0, run.stderr);
      const doc = run.json();
      assertInvoiceSignals(doc, 'report');
    });

    it('a hot function that stays interpreted is reported as such, with the reason (--max-opt=0); a mutated built-in too', async () => {
      // Chance of failing on a correct product: 0 — with --max-opt=0 V8 cannot leave the interpreter, so
      // there is no random outcome to size. Once in a clean-clone run (Node 20, loaded machine)
      // renderInvoice came back without V8 signals (the test then retried; integration tests no longer
      // do). The product's end-of-run tier query can fail on a busy machine, and then it must say so: a
      // hot function without signals is accepted only with that limitation, and everything else is
      // still asserted. Without it, that is a product bug, and the message carries what is needed.
      const tag = marker();
      const run = await runCliOn(node, ['profile', ...LOAD, '--json', '--out', out, '--env', 'NO_BREAKPOINT=1', '--env', 'MUTATE_PROTO=1', '--', node, '--max-opt=0', SERVER, tag]);
      assert.equal(run.code, 0, run.stderr);
      const doc = run.json();
      const h = hotspot(doc, 'renderInvoice');
      if (!h?.v8) {
        const why = `renderInvoice without V8 signals: ${JSON.stringify(h ?? doc.hotspots.map((x: any) => x.function))}; tiersRead ${doc.v8.tiersRead}; limitation: ${doc.v8.limitation}`;
        console.log(`      # ${why}`);
        assert.match(doc.v8.limitation ?? '', /end-of-run tiers(?: and protector cells)? could not be read/, why);
      } else {
        assert.equal(h.v8.tier, 'Ignition', JSON.stringify(h.v8));
        assert.equal(h.v8.notOptimized.cause, 'disabled');
        assert.match(h.v8.notOptimized.reason, /--max-opt=0/);
      }
      assert.ok(doc.v8.findings.some((f: any) => f.id === 'V8_OPTIMIZER_OFF'), JSON.stringify(doc.v8.findings));
      assert.equal(doc.checks.find((c: any) => c.id === 'v8-flags').status, 'warn');
      // The modified built-in is read from V8's protector cells by the same end-of-run query: where that
      // query failed (census50, Node 26: "Cannot find context with specified id"), the product must say the
      // cells were not read — before, it reported nothing and the test asserted the finding regardless.
      const proto = doc.v8.findings.find((f: any) => f.id === 'V8_PROTECTOR_NO_ELEMENTS');
      if (proto) assert.match(proto.text, /fast paths/);
      else assert.match(doc.v8.limitation ?? '', /protector cells could not be read/, `Object.setPrototypeOf(Array.prototype, …) is reported, or the limitation says the check could not run: ${JSON.stringify(doc.v8.findings)}; limitation: ${doc.v8.limitation}`);
      assert.deepEqual(await waitForNoProcesses(tag), []);
    });

    it('script mode: tiers read in an exit hook, the deopt and the inlining', async () => {
      const tag = marker();
      const run = await runCliOn(node, ['profile', '--script', '--limit', '100', '--json', '--out', out, '--', node, SCRIPT, tag], { RUN_MS: '2500' });
      assert.equal(run.code, 0, run.stderr);
      const doc = run.json();
      // Nothing missing; Node 24 and later only note that Maglev's own inlining is not described by V8.
      assert.ok(doc.v8.limitation === undefined || (Number(major) >= 24 && /^Maglev's own inlining/.test(doc.v8.limitation)), doc.v8.limitation);
      assertInvoiceSignals(doc, 'script');
      assert.equal(doc.target.sourceMapsEnabled, false, 'read from the process before it exited');
      assert.deepEqual(await waitForNoProcesses(tag), []);
    });

    it('attach: the same signals from a running process, which keeps running and its output untouched', async () => {
      const inspectPort = await freePort();
      const httpPort = await freePort();
      const app: ChildProcess = spawn(node, [`--inspect-port=127.0.0.1:${inspectPort}`, SERVER], { env: { ...process.env, PORT: String(httpPort) }, stdio: ['ignore', 'pipe', 'pipe'] });
      let appOutput = '';
      app.stdout!.on('data', (d) => { appOutput += d; });
      app.stderr!.on('data', (d) => { appOutput += d; });
      let appExit = '';
      app.on('exit', (code, signal) => { appExit = `exit ${code}, signal ${signal}`; });
      try {
        // The app listens (state, not a fixed pause: a busy machine can take longer than any pause).
        for (const deadline = Date.now() + 30_000; !(await accepting(httpPort)); await new Promise((r) => setTimeout(r, 50))) {
          assert.ok(Date.now() < deadline && !appExit, `the app listens on ${httpPort} (${appExit || 'still not after 30 s'}; its output: ${appOutput.slice(-2000)})`);
        }
        const args = ['profile', '--attach', String(app.pid), '--inspect-port', String(inspectPort), '--port', String(httpPort), ...LOAD, '--json', '--out', out];
        const run = await runCliOn(node, args);
        assert.equal(run.code, 0, run.stderr);
        const doc = run.json();
        assert.equal(doc.v8.collected, true);
        assert.match(doc.v8.limitation, /attached: optimizations and deopts are counted from the moment Hotpath attached/);
        assert.match(doc.v8.limitation, /inlining refusals are not collected \(V8 prints them only on the app's own stdout\)/);
        assertInvoiceSignals(doc, 'attach');
        assertInterpretedUnderBreakpoint(doc, 'attach');
        assert.doesNotThrow(() => process.kill(app.pid!, 0), `the attached app is still running (${appExit}; its output: ${appOutput.slice(-2000)})`);
        assert.doesNotMatch(appOutput, /__hotpathV8Probe|Considering 0x|Inlining 0x|\[completed compiling/, 'no trace of ours in the app\'s output');
        // Except what V8 itself prints past the redirect: then the limitation says so.
        if (/\(opt id \d+\) for deoptimization, reason:/.test(appOutput)) assert.match(doc.v8.limitation, /V8 wrote \d+ lines? ending "for deoptimization, reason: …\]" to the app's stdout/);
        // Attaching again works: V8's code tracer keeps the file name of the first attach (one per pid).
        const again = await runCliOn(node, [...args.slice(0, -5), '--duration', '1', '--warmup', '1', '--connections', '4', '--json', '--out', out]);
        assert.equal(again.code, 0, again.stderr);
        const second = again.json();
        assert.equal(second.v8.collected, true);
        const again2 = hotspot(second, 'renderInvoice');
        const seen = `${JSON.stringify(again2?.v8 ?? second.hotspots.map((x: any) => x.function))}; limitation: ${second.v8.limitation}`;
        assert.ok(again2?.v8, `second attach: renderInvoice has V8 signals: ${seen}`);
        // What V8 did, not what it usually does. Usually renderInvoice is still optimized from the first
        // attach's load. But a deopt in this window ("Insufficient type feedback for generic named access"
        // was seen in CI) can leave it unoptimized when the window ends (tier Ignition/Sparkplug, or
        // "unknown" with a reason). Then the product must show that deopt. V8 only leaves optimized code
        // through a deopt or through bytecode flushing, and flushing needs the function idle over several
        // full GCs — not the second between the two attaches, under load.
        // Chance of failing on a correct product: 0 by that mechanism (no sampling involved). The old
        // assertion (always optimized) failed once in the last cycle's ~10 clean-clone runs (Node 20).
        if (!['TurboFan', 'Maglev'].includes(again2.v8.tier)) {
          console.log(`      # second attach: renderInvoice ${again2.v8.tier} after ${JSON.stringify(again2.v8.deopts.map((d: any) => d.reason))}`);
          assert.ok(again2.v8.deopts.length > 0, `second attach: renderInvoice not optimized (${again2.v8.tier}) and no deopt shown that explains it: ${seen}`);
          if (again2.v8.tier === 'unknown') assert.ok(again2.v8.tierUnknown?.reason, `an unknown tier says why: ${seen}`);
        }
      } finally {
        app.kill('SIGKILL');
      }
    });
  });
}
