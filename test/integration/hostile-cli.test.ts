/**
 * The terminal surface: `hotpath report` of a profile whose function names and file paths carry terminal
 * escapes (OSC 52 clipboard writes, screen clears, cursor moves, OSC 8 links), line breaks and bidi
 * overrides. Nothing of it may reach the terminal raw — not in the table, the headline, the warnings,
 * the error messages, nor in the `--json` document.
 *
 * test-lane: quick — core paths on this machine's Node, in seconds: part of `npm run test:quick`.
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, runCli } from '../helpers/cli';
import { HOSTILE_NAMES, profileOf } from '../hostileText';

// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('CLI output with hostile profile text', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-hostile-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('report: names and paths are shown with visible escapes, on their own lines', async () => {
    const frames = HOSTILE_NAMES.map((name, i) => ({ name, url: `file://${dir}/${encodeURIComponent(name)}.js`, line: i + 1, samples: 20 + i, children: [{ name: `child ${name}`, url: '', samples: 5 }] }));
    const file = path.join(dir, 'hostile.cpuprofile');
    fs.writeFileSync(file, JSON.stringify(profileOf(frames)));
    const run = await runCli(['report', '--limit', '40', file]);
    assert.equal(run.code, 0, run.stderr);
    for (const [i, line] of run.stdout.split('\n').entries()) assert.doesNotMatch(line, RAW, `stdout line ${i + 1}: ${JSON.stringify(line)}`);
    assert.doesNotMatch(run.stderr, RAW);
    assert.ok(run.stdout.includes('osc52\\x1b]52;c;cHduZWQ=\\x07'), 'the escape is shown as text');
    assert.ok(run.stdout.includes('rtl\\u202eevil'), 'the bidi override is shown as text');
    assert.doesNotMatch(run.stdout, /^fake line/m, 'a carriage return cannot start a forged line');

    const json = await runCli(['report', '--json', '--limit', '40', file]);
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, RAW, 'the JSON document carries no raw control, C1 or bidi character');
    const doc = json.json();
    const names = new Set(doc.hotspots.map((h: { function: string }) => h.function));
    for (const name of HOSTILE_NAMES) assert.ok(names.has(name), `JSON keeps the exact name ${JSON.stringify(name)}`);
  });

  it('errors naming a hostile file are shown with visible escapes', async () => {
    const name = path.join(dir, 'bad\u001b]52;c;cHduZWQ=\u0007\u001b[2J.cpuprofile');
    fs.writeFileSync(name, '{"nodes": [');
    const run = await runCli(['report', name]);
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stderr.replace(/\n/g, ''), RAW, JSON.stringify(run.stderr));
    assert.match(run.stderr, /\\x1b\]52;c;cHduZWQ=\\x07/);
  });
});

describe('report: files named by a profile are read only if regular, bounded and in time', function () {
  this.timeout(90_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-fifo-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('FIFO, /dev/stdin (a pipe), /dev/zero and /dev/urandom URLs: report finishes, says which maps it could not use', async () => {
    const fifos = Array.from({ length: 4 }, (_, i) => path.join(dir, `fifo${i}.js`));
    for (const f of fifos) execFileSync('mkfifo', [f]);
    // A real script whose source map reference is a FIFO, and one whose map is /dev/zero.
    const mapFifo = path.join(dir, 'app.js.map');
    execFileSync('mkfifo', [mapFifo]);
    // Line ticks make attribution map app.js's lines through that map (it read maps unbounded once: hung).
    fs.writeFileSync(path.join(dir, 'app.js'), 'function hot() {\n  let s = 0; for (let i = 0; i < 1e6; i++) s += i; return s;\n}\n//# sourceMappingURL=app.js.map\n');
    // A map reference without `.map`: attribution once read it with an unbounded fs.readFile, and hung.
    execFileSync('mkfifo', [path.join(dir, 'other-map')]);
    fs.writeFileSync(path.join(dir, 'other.js'), 'function busy() {\n  let s = 0; for (let i = 0; i < 1e6; i++) s += i; return s;\n}\nbusy();\n//# sourceMappingURL=other-map\n');
    fs.writeFileSync(path.join(dir, 'zero.js'), 'function z() {}\n//# sourceMappingURL=file:///dev/zero\n');
    const devices = [...Array(12).fill('/dev/zero'), '/dev/urandom', '/dev/stdin'];
    const frames = [
      ...fifos.map((f, i) => ({ name: `fifo${i}`, url: `file://${f}`, samples: 5 })),
      ...devices.map((d, i) => ({ name: `device${i}`, url: `file://${d}`, line: i + 1, samples: 5 })),
      { name: 'hot', url: `file://${dir}/app.js`, samples: 30, positionTicks: [{ line: 2, ticks: 30 }] },
      // The module calls busy() on line 4: placing that call site maps through the map.
      { name: '', url: `file://${dir}/other.js`, samples: 1, children: [{ name: 'busy', url: `file://${dir}/other.js`, samples: 20, positionTicks: [{ line: 2, ticks: 20 }] }] },
      { name: 'z', url: `file://${dir}/zero.js`, samples: 10 },
    ];
    const file = path.join(dir, 'fifo.cpuprofile');
    fs.writeFileSync(file, JSON.stringify(profileOf(frames)));
    // stdin is a pipe nobody writes to: /dev/stdin would block a reader forever.
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, 'report', '--json', file], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(null); }, 60_000);
      child.on('exit', (c) => { clearTimeout(timer); resolve(c); });
    });
    child.stdin.destroy();
    assert.notEqual(code, null, `report did not finish within 60 s (it hangs on a FIFO or device): ${stderr}`);
    assert.equal(code, 0, stderr);
    const doc = JSON.parse(stdout);
    assert.ok(doc.hotspots.some((h: { function: string }) => h.function === 'hot'));
    const warning = doc.warnings.find((w: { code: string }) => w.code === 'SOURCE_MAP_UNUSABLE');
    assert.ok(warning, JSON.stringify(doc.warnings));
    assert.match(warning.message, /FIFO|device|not a regular file/);
    console.log(`      report with FIFO and device URLs: ${Date.now() - started} ms`);
  });
});

describe('report: profiles that cannot be ranked', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-sanity-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('zero samples: exit 1 with what happened and what to do, no claim about where time went', async () => {
    const file = path.join(dir, 'empty.cpuprofile');
    fs.writeFileSync(file, JSON.stringify(profileOf([{ name: 'work', url: 'file:///app/a.js', samples: 0 }])));
    const run = await runCli(['report', file]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /holds no sampled time \(0 samples\).*Profile a longer run/s);
    assert.doesNotMatch(run.stdout + run.stderr, /dependencies or Node/);
  });

  it('a saved Profiler.stop response is unwrapped; absurd deltas are refused', async () => {
    const wrapped = path.join(dir, 'wrapped.cpuprofile');
    fs.writeFileSync(wrapped, JSON.stringify({ profile: profileOf([{ name: 'work', url: 'file:///app/a.js', samples: 10 }]) }));
    const ok = await runCli(['report', '--json', wrapped]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.json().hotspots[0].function, 'work');
    const absurd = path.join(dir, 'absurd.cpuprofile');
    const p = profileOf([{ name: 'work', url: 'file:///app/a.js', samples: 3 }]) as { timeDeltas: number[] };
    p.timeDeltas[1] = 1e300;
    fs.writeFileSync(absurd, JSON.stringify(p));
    const bad = await runCli(['report', absurd]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /more than 30 days.*re-record/s);
  });
});

describe('report honours Ctrl-C while it reads', function () {
  this.timeout(240_000);

  it('SIGINT during a ~200 MB report: exit 130, cancelled', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { cachedProfile } = require('../../bench/lib/generate.js') as { cachedProfile(mb: number): string };
    const file = cachedProfile(200); // shared with the benchmark and the extension-host test
    const child = spawn(process.execPath, [CLI, 'report', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdout.resume();
    // Interrupt once the CLI is reading the file (its signal handler is installed by then): found
    // among its open descriptors, so a slow start on a busy machine cannot make the signal early.
    const reading = () => { try { return fs.readdirSync(`/proc/${child.pid}/fd`).some((fd) => { try { return fs.readlinkSync(`/proc/${child.pid}/fd/${fd}`) === file; } catch { return false; } }); } catch { return false; } };
    const poll = setInterval(() => { if (reading()) { clearInterval(poll); child.kill('SIGINT'); } }, 10);
    child.on('exit', () => clearInterval(poll));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 130, stderr);
    assert.match(stderr, /cancelled/i);
  });
});
