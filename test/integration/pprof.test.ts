/**
 * Production profiles end to end, with the real producers and the real consumer:
 * - @datadog/pprof (wall with line numbers, its defaults, heap) and the Pyroscope SDK (its real upload,
 *   received by a loopback HTTP server) profile one fixture program; `hotpath report` names its hot
 *   function and line from each;
 * - Hotpath's export of a real `node --cpu-prof` profile is read by `go tool pprof` (Debian's golang-go,
 *   installed by the test set-up: scripts/ensure-go.js): totals match, and the line that calls a native
 *   function carries that function's cumulative time; export → import gives the same hotspots;
 * - another machine's paths, a function-level profile, a 0x capture made by the `0x` package, and
 *   production against local (`report --diff`).
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, ROOT, runCli } from '../helpers/cli';
import { NODE_MATRIX, nodeFor } from '../helpers/nodeVersions';
import { HOSTILE_NAMES } from '../hostileText';
import { gzipPprof } from '../helpers/pprofBuilder';
import { runNode, wallProfileFromAway } from '../helpers/pprofProducer';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { findGo } = require('../../scripts/ensure-go.js') as { findGo: () => string | null };

const FIXTURE = path.join(APPS, 'pprof-producer.js');
const SOURCE = fs.readFileSync(FIXTURE, 'utf8').split('\n');
const lineOf = (marker: string) => SOURCE.findIndex((l) => l.includes(marker)) + 1;
const declOf = (name: string) => SOURCE.findIndex((l) => l.startsWith(`function ${name}(`)) + 1;

const run = runNode;

/** Runs the fixture (in `dir`) in one of its producer modes. */
async function produce(dir: string, mode: string, out: string, node?: string): Promise<void> {
  await run([FIXTURE, mode, out], dir, node);
}

describe('pprof: real producers and consumers', function () {
  this.timeout(240_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-pprof-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // V8 writes the caller lines: each Node's, so each V8's. (Node 22's V8 samples the hot function on one
  // line only, so only the source tells this profile has lines.)
  for (const [major, label] of NODE_MATRIX) {
    it(`@datadog/pprof wall with line numbers on ${label}: the hot function and its hot line`, async function () {
      const file = path.join(dir, `wall-${major}.pb.gz`);
      await produce(dir, 'datadog-wall', file, nodeFor(this, major));
      await wallReport(file);
      if (major === '20') fs.copyFileSync(file, path.join(dir, 'wall.pb.gz'));
    });
  }
  async function wallReport(file: string): Promise<void> {
    const r = await runCli(['report', '--json', file], { cwd: APPS });
    assert.equal(r.code, 0, r.stderr);
    const doc = r.json();
    assert.equal(doc.pprof.producer, '@datadog/pprof');
    assert.equal(doc.pprof.granularity, 'lines');
    assert.equal(doc.pprof.sampleType.type, 'wall');
    const top = doc.hotspots.find((h: { category: string }) => h.category === 'user');
    assert.equal(top.function, 'hotLoop');
    assert.equal(top.line, declOf('hotLoop'), 'the producer records no start line: the workspace source gives it (its CodeLens line)');
    assert.equal(doc.lines[0].file, FIXTURE);
    assert.equal(doc.lines[0].line, lineOf('// hot line'), JSON.stringify(doc.lines.slice(0, 3)));
    assert.equal(doc.lines[0].function, 'hotLoop');
    // busy's call of hotLoop, from the caller line the profile recorded.
    const call = doc.lines.find((l: { line: number }) => l.line === SOURCE.findIndex((x) => x.includes('total += hotLoop(')) + 1);
    // Chance of failing on a correct product: nil in practice. A wall profile: the fixture starts the
    // profiler, runs busy(1500) and stops it, so busy's loop spans nearly all of the profile's wall time,
    // and the loop never waits — a starved process is still inside it at every sample, however few there are.
    assert.ok(call && call.totalPct > 50, JSON.stringify(doc.lines));
  }

  it('@datadog/pprof defaults (function level): the hot function at its line, no line heat, said so', async () => {
    const file = path.join(dir, 'default.pb.gz');
    await produce(dir, 'datadog-default', file);
    const r = await runCli(['report', '--json', file], { cwd: APPS });
    assert.equal(r.code, 0, r.stderr);
    const doc = r.json();
    assert.equal(doc.pprof.granularity, 'functions');
    assert.equal(doc.pprof.sampleType.type, 'wall', 'its defaults collect wall time only');
    const top = doc.hotspots.find((h: { category: string }) => h.category === 'user');
    assert.deepEqual([top.function, top.file, top.line], ['hotLoop', FIXTURE, declOf('hotLoop')]);
    assert.deepEqual(doc.lines, [], 'no line is given time a function-level profile does not have');
    const text = await runCli(['report', file], { cwd: APPS });
    assert.match(text.stdout, /This is a function-level profile/);
  });

  it('@datadog/pprof heap: the allocating function, in bytes', async () => {
    const file = path.join(dir, 'heap.pb.gz');
    await produce(dir, 'datadog-heap', file);
    const r = await runCli(['report', '--json', file], { cwd: APPS });
    assert.equal(r.code, 0, r.stderr);
    const doc = r.json();
    assert.equal(doc.pprof.unit, 'bytes');
    assert.equal(doc.allocations.sampleType, 'inuse_space');
    assert.deepEqual([doc.allocations.sites[0].function, doc.allocations.sites[0].file, doc.allocations.sites[0].line], ['makeRecords', FIXTURE, declOf('makeRecords')]);
    assert.ok(doc.allocations.sites[0].pct > 50);
    assert.deepEqual(doc.hotspots, [], 'bytes are never shown as milliseconds');
    const objects = (await runCli(['report', '--json', '--sample-type', 'inuse_objects', file], { cwd: APPS })).json();
    assert.equal(objects.allocations.unit, 'objects');
  });

  it('the Pyroscope SDK: its real upload, received on 127.0.0.1, names the hot function; labels are broken down', async () => {
    const bodies: { url: string; body: Buffer }[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => { bodies.push({ url: req.url ?? '', body: Buffer.concat(chunks) }); res.end('ok'); });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      await produce(dir, 'pyroscope', `http://127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const upload = bodies.find((b) => b.url.startsWith('/ingest?') && b.url.includes('format=pprof'));
    assert.ok(upload, `no pprof upload: ${bodies.map((b) => b.url).join(', ')}`);
    const file = path.join(dir, 'pyroscope.pb.gz');
    fs.writeFileSync(file, upload!.body);
    const doc = (await runCli(['report', '--json', file], { cwd: APPS })).json();
    assert.equal(doc.pprof.producer, 'Pyroscope SDK');
    const top = doc.hotspots.find((h: { category: string }) => h.category === 'user');
    assert.deepEqual([top.function, top.file, top.line], ['hotLoop', FIXTURE, declOf('hotLoop')], 'the `path:name:line` renaming undone');
    const endpoint = doc.pprof.labels.breakdown.find((b: { key: string }) => b.key === 'endpoint');
    assert.equal(endpoint.values[0].value, 'busy');
    const filtered = (await runCli(['report', '--json', '--label', 'endpoint=busy', file], { cwd: APPS })).json();
    assert.ok(filtered.pprof.labels.keptSamples > 0 && filtered.pprof.labels.keptSamples <= doc.pprof.labels.keptSamples);
  });

  describe('export, read by go tool pprof', () => {
    let cpuprofile: string;
    let go: string;
    before(async function () {
      go = findGo()!;
      assert.ok(go, 'go is installed by `npm test`\'s pretest (node scripts/ensure-go.js)');
      const out = path.join(dir, 'cpu');
      // No inlining: an optimized main would run signingKey inlined, without a frame of its own to hold the line.
      await run(['--no-turbo-inlining', '--cpu-prof', `--cpu-prof-dir=${out}`, '--cpu-prof-interval=500', FIXTURE, 'native'], dir);
      cpuprofile = path.join(out, fs.readdirSync(out)[0]);
    });
    const pprof = (...args: string[]) => execFileSync(go, ['tool', 'pprof', '-unit=ms', ...args], { encoding: 'utf8', env: { ...process.env, HOME: dir, PPROF_TMPDIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    const total = (top: string) => Number(/of ([\d.]+)ms total/.exec(top)?.[1] ?? /Total samples = ([\d.]+)ms/.exec(top)?.[1]);
    /** `-top` rows: flat and cum (ms) by `name file:line`. */
    const rows = (top: string) => {
      const out = new Map<string, { flat: number; cum: number }>();
      for (const line of top.split('\n')) {
        const m = /^\s*([\d.]+)(?:ms)?\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)(?:ms)?\s+[\d.]+%\s+(.*)$/.exec(line);
        if (m) out.set(m[3].trim(), { flat: Number(m[1]), cum: Number(m[2]) });
      }
      return out;
    };

    it('totals match Hotpath\'s; the line that calls pbkdf2Sync carries its cumulative time; the round trip keeps the hotspots', async () => {
      const exported = path.join(dir, 'export.pb.gz');
      const r = await runCli(['report', '--json', '--limit', '10', '--pprof', exported, cpuprofile], { cwd: APPS });
      assert.equal(r.code, 0, r.stderr);
      const doc = r.json();
      const written = doc.pprofExports[0];
      assert.equal(written.sampleType, 'cpu');
      // The export's total is the profile's sampled time without (idle).
      const hotpathMs = doc.durationMs - written.idleExcludedMs;
      const top = pprof('-top', '-lines', '-nodecount=400', exported);
      assert.ok(Math.abs(total(top) - hotpathMs) < 0.05, `go tool pprof total ${total(top)} ms, Hotpath ${hotpathMs} ms\n${top}`);
      assert.ok(Math.abs(written.total / 1e6 - hotpathMs) < 0.05);

      const cum = rows(pprof('-top', '-cum', '-lines', '-nodecount=400', exported));
      const callLine = lineOf('// native call line');
      const site = [...cum].find(([k]) => k.startsWith('signingKey ') && k.endsWith(`pprof-producer.js:${callLine}`));
      const callee = [...cum].filter(([k]) => k.startsWith('pbkdf2Sync ')).reduce((a, [, v]) => a + v.cum, 0);
      assert.ok(site, `no row for signingKey at line ${callLine}:\n${[...cum.keys()].join('\n')}`);
      assert.ok(callee > 0, 'pbkdf2Sync has time');
      // The call line's cumulative time is the callee's, plus what signingKey's own code ran on that line and
      // the little else called there (a Buffer constructor).
      const [, at] = site!;
      const detail = `line ${callLine}: ${at.cum} ms cum, ${at.flat} ms flat; pbkdf2Sync: ${callee} ms cum`;
      assert.ok(at.cum + 0.05 >= callee, detail);
      assert.ok(at.cum - at.flat - callee <= callee * 0.05, detail);

      // Round trip: the export read back ranks the same functions with the same time.
      const back = (await runCli(['report', '--json', '--limit', '10', exported], { cwd: APPS })).json();
      assert.equal(back.pprof.producer, 'Hotpath');
      assert.equal(back.pprof.granularity, 'lines');
      const key = (h: { function: string; file: string; selfMs: number }) => `${h.function} ${h.file} ${Math.round(h.selfMs)}`;
      assert.deepEqual(back.hotspots.slice(0, 5).map(key), doc.hotspots.slice(0, 5).map(key));
    });
  });

  it('another machine\'s paths: a file-name match is not enough; a two-component suffix or --map-path is', async () => {
    const file = path.join(dir, 'away.pb.gz');
    const remote = await wallProfileFromAway(file);
    const deployed = path.dirname(remote);

    // Workspace = the fixture folder itself: only the file name is in common.
    const flat = (await runCli(['report', '--json', file], { cwd: APPS })).json();
    const reason = flat.pprof.paths.notFound.find((n: { file: string }) => n.file === remote)?.reason;
    assert.match(reason, /only its file name matches/);
    assert.ok(flat.hotspots.every((h: { file: string }) => h.file !== FIXTURE), 'nothing is put on a file that merely has the same name');
    // Workspace = test/fixtures: `apps/pprof-producer.js` is a real suffix.
    const rooted = (await runCli(['report', '--json', file], { cwd: path.dirname(APPS) })).json();
    assert.equal(rooted.lines[0].file, FIXTURE);
    assert.equal(rooted.lines[0].line, lineOf('// hot line'));
    // Or say it.
    const mapped = (await runCli(['report', '--json', '--map-path', `${deployed}=.`, file], { cwd: APPS })).json();
    assert.equal(mapped.lines[0].file, FIXTURE);
    assert.equal(mapped.pprof.paths.how.mapping, 1);
  });

  it('a 0x capture made by the 0x package opens in the report (folder and its tick log)', async () => {
    const out = path.join(dir, 'capture.0x');
    // No inlining: V8's tick log names the optimized function a tick is in, so an inlined hotLoop would be busy's.
    await run([path.join(ROOT, 'node_modules', '0x', 'cmd.js'), '--collect-only', '-D', out, '--', process.execPath, '--no-turbo-inlining', FIXTURE, 'plain'], dir);
    for (const target of [out, path.join(out, fs.readdirSync(out).find((f) => /^isolate-.*\.json$/.test(f))!)]) {
      const r = await runCli(['report', '--json', target], { cwd: APPS });
      assert.equal(r.code, 0, r.stderr);
      const doc = r.json();
      assert.equal(doc.pprof.format, '0x');
      assert.equal(doc.pprof.granularity, 'functions');
      const top = doc.hotspots.find((h: { category: string }) => h.category === 'user');
      assert.deepEqual([top.function, top.file, top.line], ['hotLoop', FIXTURE, declOf('hotLoop')]);
    }
  });

  it('hostile names, files and label values in a pprof profile reach the terminal only as visible escapes', async () => {
    // eslint-disable-next-line no-control-regex
    const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    const file = path.join(dir, 'hostile.pb.gz');
    fs.writeFileSync(file, gzipPprof({
      types: [['cpu', 'nanoseconds']],
      samples: HOSTILE_NAMES.map((name, i) => ({ stack: [{ name, file: `/srv/${name}.js`, line: i + 1 }], values: [(i + 1) * 1_000_000], labels: { [name]: name } })),
    }));
    const r = await runCli(['report', '--limit', '40', file], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    for (const [i, line] of r.stdout.split('\n').entries()) assert.doesNotMatch(line, RAW, `stdout line ${i + 1}: ${JSON.stringify(line)}`);
    const json = await runCli(['report', '--json', '--limit', '40', file], { cwd: dir });
    assert.doesNotMatch(json.stdout, RAW);
    assert.ok(json.json().hotspots.some((h: { function: string }) => h.function === HOSTILE_NAMES[0]), 'the JSON keeps the exact name');
  });

  it('production against local: report --diff matches functions across formats', async () => {
    const prod = path.join(dir, 'wall.pb.gz');
    const out = path.join(dir, 'local');
    await run(['--cpu-prof', `--cpu-prof-dir=${out}`, FIXTURE, 'plain'], dir);
    const local = path.join(out, fs.readdirSync(out)[0]);
    const r = await runCli(['report', '--json', '--diff', prod, local], { cwd: APPS });
    assert.equal(r.code, 0, r.stderr);
    const doc = r.json();
    const hot = doc.diff.functions.find((f: { function: string }) => f.function === 'hotLoop');
    assert.ok(hot && hot.selfPctBefore > 50 && hot.selfPctAfter > 50, JSON.stringify(doc.diff.functions.slice(0, 5)));
    assert.equal(doc.pprofBefore.producer, '@datadog/pprof');
  });
});
