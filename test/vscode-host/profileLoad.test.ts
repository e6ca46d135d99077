/**
 * The extension host is shared with every other extension: opening a ~200 MB profile must not block
 * it. A timer on the host thread ticks every 10 ms while "Hotpath: Open CPU Profile…" reads, parses,
 * ranks and lays out the profile (in a worker thread) and the result reaches the editor; the host
 * thread must never be busy for 100 ms or more between two ticks (issue 10). The profile is generated
 * by a child process (bench/lib/generate.js, cached in the temp directory), so generating it blocks
 * nothing.
 *
 * Busy is the host thread's own CPU time between two ticks (process.threadCpuUsage, Node 23.9+: the
 * extension host runs on code-server's Node 24), not the wall-clock gap: on a shared 2-core machine the
 * OS can leave a thread waiting for a core for 100 ms with nothing of ours running (CI: a 162 ms wall gap
 * with an idle host's 25 ms; that test failed on a correct product). A block by Hotpath — parsing or
 * laying out on the host thread instead of the worker — is CPU time on this thread and fails it the
 * same; the wall-clock gap is still measured and logged.
 * Chance of failing on a correct product: 0 from the machine's load; what remains is the host thread's
 * own work between two ticks (taking the worker's result), measured at 11 ms at load average 15 (the wall
 * gap was 188 ms there: the old assertion failed). With the profile also parsed on the host thread (a
 * deliberately broken build) it measured 1,194 ms and failed.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/* eslint-disable @typescript-eslint/no-explicit-any */
const EXTENSION_ID = 'hotpath.hotpath';

function generate(root: string, sizeMB: number): Promise<string> {
  const script = `process.stdout.write(require(${JSON.stringify(path.join(root, 'bench', 'lib', 'generate.js'))}).cachedProfile(${sizeMB}))`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, maxBuffer: 1 << 20, timeout: 240_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`generating the profile failed: ${err.message}\n${stderr}`)); else resolve(stdout.trim());
    });
  });
}

/** This thread's CPU time in ms (user + system), where Node has it (23.9+); null before. */
const threadCpuMs: () => number | null = (() => {
  const usage = (process as unknown as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  return () => { if (!usage) return null; const u = usage.call(process); return (u.user + u.system) / 1000; };
})();

/**
 * Ticks every 10 ms on the host's main thread and keeps the longest gap between two ticks, in wall
 * time and in this thread's CPU time.
 */
function gapMeter(): { stop(): { worstMs: number; worstCpuMs: number | null; ticks: number } } {
  let last = performance.now();
  let lastCpu = threadCpuMs();
  let worst = 0;
  let worstCpu = lastCpu === null ? null : 0;
  let ticks = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = threadCpuMs();
    worst = Math.max(worst, now - last);
    if (cpu !== null && lastCpu !== null) worstCpu = Math.max(worstCpu ?? 0, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(() => { tick(); ticks++; }, 10);
  return { stop: () => { clearInterval(timer); tick(); return { worstMs: worst, worstCpuMs: worstCpu, ticks }; } };
}

describe('opening a big profile does not block the extension host', function () {
  this.timeout(300_000);

  it('a ~200 MB profile loads while the host thread is never busy for 100 ms between two timer ticks', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const api = (ext.isActive ? ext.exports : await ext.activate()) as { session: { profile?: { profilePath: string; hotspots: unknown[]; payload?: unknown } } };
    const file = await generate(ext.extensionPath, 200);
    const size = fs.statSync(file).size;
    assert.ok(size > 150 * 1024 * 1024, `the profile is ~200 MB (${size} bytes)`);

    // The same period with nothing of ours running: how steady this host's timer is on this machine.
    const idle = gapMeter();
    await new Promise((r) => setTimeout(r, 1500));
    const control = idle.stop();

    const meter = gapMeter();
    const t = performance.now();
    await vscode.commands.executeCommand('hotpath.openProfile', vscode.Uri.file(file));
    const loadMs = performance.now() - t;
    // The flamegraph's chunks go to the webview after the command returned: keep measuring through them.
    await new Promise((r) => setTimeout(r, 3000));
    const during = meter.stop();

    const loaded = api.session.profile;
    assert.ok(loaded && loaded.profilePath === file, 'the profile is the one the editor shows');
    assert.ok(loaded.hotspots.length > 0 && loaded.payload, 'with hotspots and a flamegraph');
    const metrics = (globalThis as any).__hotpathHostMetrics;
    metrics.bigProfileLoadMs = Math.round(loadMs);
    metrics.bigProfileWorstTimerGapMs = Math.round(during.worstMs);
    metrics.idleWorstTimerGapMs = Math.round(control.worstMs);
    if (during.worstCpuMs !== null) metrics.bigProfileWorstHostCpuBetweenTicksMs = Math.round(during.worstCpuMs);
    console.log(`      ${(size / 1048576).toFixed(0)} MB profile: opened in ${loadMs.toFixed(0)} ms; longest host timer gap ${during.worstMs.toFixed(1)} ms (host thread busy at most ${during.worstCpuMs?.toFixed(1) ?? '?'} ms of it) over ${during.ticks} ticks (idle host: ${control.worstMs.toFixed(1)} ms)`);
    assert.ok(during.worstCpuMs !== null, `process.threadCpuUsage() exists in the extension host (Node ${process.version})`);
    assert.ok(during.worstCpuMs < 100, `the host thread was busy for ${during.worstCpuMs.toFixed(0)} ms between two ticks while the profile loaded (wall gap ${during.worstMs.toFixed(0)} ms; idle: ${control.worstMs.toFixed(0)} ms)`);
    await vscode.commands.executeCommand('hotpath.clearAnnotations');
  });
});
