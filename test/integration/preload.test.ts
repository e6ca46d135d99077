/**
 * The preload runs inside the user's app, so it must not change what the app does: a server that
 * crashes on EADDRINUSE still crashes, nothing of Hotpath's appears on the app's stderr, and in script
 * mode only the process Hotpath profiles remotely pauses. Wrappers (`npx` here, through its real
 * /usr/bin symlink) are not profiled: `npx marked` gives one profile per working process, no
 * duplicated rows and no Hotpath frames among the hotspots (issue 9, item 6).
 *
 * test-lane: quick — core paths on this machine's Node, in seconds: part of `npm run test:quick`.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, ROOT, runCli, waitForNoProcesses } from '../helpers/cli';

const PRELOAD = path.join(ROOT, 'dist', 'hotpath-preload.js');
const HOTPATH_FRAMES = /^(waitForDebugger|__hotpathV8ProbeLoop|hotpathV8ExitHook|hotpathObserveListen)$/;

/** Runs `node args` as Hotpath would start it (its NODE_OPTIONS and report file), without Hotpath. */
function underPreload(args: string[], mode: 'http' | 'script', extraEnv: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-preload-test-'));
  const reportFile = path.join(dir, 'reports.jsonl');
  fs.writeFileSync(reportFile, '');
  const env = { ...process.env, NODE_OPTIONS: `--inspect-publish-uid=http --require ${PRELOAD}`, HOTPATH_REPORT_FILE: reportFile, HOTPATH_MODE: mode, ...extraEnv };
  return { dir, reportFile, env };
}

describe('the preload does not change the app', function () {
  this.timeout(120_000);

  it('a second server hitting EADDRINUSE still exits 1, as without Hotpath; stderr has no Hotpath line', () => {
    const plain = spawnSync(process.execPath, [path.join(APPS, 'two-servers.js')], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(plain.status, 1, `without Hotpath: ${plain.stderr}`);
    assert.match(plain.stderr, /EADDRINUSE/);
    const p = underPreload([], 'http');
    try {
      const run = spawnSync(process.execPath, [path.join(APPS, 'two-servers.js')], { encoding: 'utf8', env: p.env, timeout: 20_000 });
      assert.equal(run.status, 1, `under the preload: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /EADDRINUSE/);
      assert.doesNotMatch(run.stderr, /Debugger listening|For help, see/);
      const reports = fs.readFileSync(p.reportFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.ok(reports.some((r) => r.type === 'listening'), 'the first listen is still reported');
      assert.ok(reports.some((r) => r.type === 'listen-error' && r.code === 'EADDRINUSE'), 'and the error observed');
    } finally {
      fs.rmSync(p.dir, { recursive: true, force: true });
    }
  });

  it('script mode: processes other than the one Hotpath profiles remotely do not pause, and profile themselves', () => {
    const p = underPreload([], 'script');
    // The program's process has claimed the remote slot already (as the first process would).
    fs.writeFileSync(path.join(p.dir, 'remote.claim'), '');
    try {
      const run = spawnSync(process.execPath, [path.join(APPS, 'spawn-children.js')], { encoding: 'utf8', env: p.env, timeout: 60_000 });
      assert.equal(run.status, 0, `it ran to the end without any debugger: ${run.stderr}`);
      assert.doesNotMatch(run.stderr, /Debugger|Waiting for the debugger/);
      const reports = fs.readFileSync(p.reportFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const processes = reports.filter((r) => r.type === 'process');
      assert.equal(processes.length, 21, 'the script and its 20 children');
      assert.ok(processes.every((r) => r.waiting === false && r.inProcess === true && r.inspectorUrl === null), 'none paused, none opened an inspector');
      const profiles = reports.filter((r) => r.type === 'worker-profile');
      assert.equal(profiles.length, 21);
      for (const r of profiles) assert.ok(fs.statSync(r.path).size > 0);
    } finally {
      fs.rmSync(p.dir, { recursive: true, force: true });
    }
  });
});

describe('script mode through wrappers and child processes', function () {
  this.timeout(180_000);
  let out: string;
  before(() => { out = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-wrapper-')); });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  function assertCleanResult(doc: any): void {
    const paths = doc.profiles.map((p: any) => p.path);
    assert.equal(new Set(paths).size, paths.length, `no profile overwrites another: ${paths}`);
    for (const p of paths) assert.ok(fs.existsSync(p), `${p} exists`);
    const threads = doc.profiles.map((p: any) => p.thread);
    assert.equal(new Set(threads).size, threads.length, `labels are distinct: ${threads}`);
    // Two functions of one name on one line are distinct (minified code); the column tells them apart.
    const rows = doc.hotspots.map((h: any) => `${h.function}|${h.file}|${h.line}:${h.column}|${h.thread}`);
    assert.equal(new Set(rows).size, rows.length, `no duplicated hotspot rows:\n${rows.join('\n')}`);
    const lines = doc.lines.map((l: any) => `${l.file}|${l.line}|${l.maybeInlined}|${l.thread}`);
    assert.equal(new Set(lines).size, lines.length, 'no duplicated line rows');
    const ours = doc.hotspots.filter((h: any) => HOTPATH_FRAMES.test(h.function) || /hotpath-preload\.js$/.test(h.file));
    assert.deepEqual(ours, [], 'no Hotpath frame among the hotspots');
  }

  it('`npx marked` (a real npm tool, local devDependency): the tool is the profile, npx is not profiled', async () => {
    // Chance of failing on a correct product: < 1e-6 — marked converts 6,000 sections (seconds of CPU), so
    // its own functions are sampled at any load; the rest is which processes were profiled (structure).
    const tag = marker();
    const md = path.join(out, 'big.md');
    const section = (i: number) => `## Section ${i}\n\nSome *emphasis*, **strong**, \`code\` and a [link](https://example.com/${i}).\n\n- item one\n- item two with _more_ text\n\n| a | b |\n|---|---|\n| ${i} | ${i * 2} |\n\n\`\`\`js\nconst x${i} = ${i};\n\`\`\`\n\n`;
    fs.writeFileSync(md, Array.from({ length: 6000 }, (_, i) => section(i)).join(''));
    const run = await runCli(['profile', '--script', '--json', '--out', out, '--', 'npx', '--no-install', 'marked', '-i', md, '-o', path.join(out, 'big.html'), tag], { cwd: ROOT, timeoutMs: 150_000 });
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    assertCleanResult(doc);
    assert.ok(fs.statSync(path.join(out, 'big.html')).size > 100_000, 'marked did its job');
    assert.ok(!doc.profiles.some((p: any) => /npx|npm-cli/.test(p.thread)), `npx is a wrapper, not a profile: ${doc.profiles.map((p: any) => p.thread)}`);
    assert.equal(doc.profiles[0].thread, 'main');
    const marked = doc.hotspots.filter((h: any) => h.category === 'dependency' && h.package === 'marked');
    assert.ok(marked.length > 0, `marked's own functions are the hotspots: ${JSON.stringify(doc.hotspots.slice(0, 5).map((h: any) => [h.function, h.file]))}`);
    assert.ok(marked.every((h: any) => h.thread === 'main'));
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('a script with 20 short children: one profile for the working process, the children labelled or left out', async () => {
    // Chance of failing on a correct product: < 1e-6 — parentWork is the parent's loop; how many of the
    // children get profiles of their own may vary with timing, and the test accepts either way (a
    // warning when some are left out).
    const tag = marker();
    const run = await runCli(['profile', '--script', '--json', '--out', out, '--', 'node', path.join(APPS, 'spawn-children.js'), tag], { timeoutMs: 150_000 });
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    assertCleanResult(doc);
    assert.equal(doc.profiles[0].thread, 'main');
    assert.ok(doc.hotspots.some((h: any) => h.function === 'parentWork' && h.thread === 'main'), 'the parent did the work');
    for (const p of doc.profiles.slice(1)) assert.match(p.thread, /^process \d+ \(/, 'other processes are labelled with PID and command');
    assert.ok(doc.profiles.length < 21 ? doc.warnings.some((w: any) => w.code === 'PROCESSES_LEFT_OUT') : true);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });
});
