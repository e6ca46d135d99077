/**
 * `hotpath mcp`'s read tools on every profile Hotpath opens, driven with the MCP SDK's own client over
 * stdio against the built dist/cli.js, as `hotpath report` and VS Code read them:
 * - pprof from the real producer (@datadog/pprof: wall with line numbers, its function-level defaults,
 *   heap), a 0x capture made by the `0x` package, another machine's paths (`mapPath`), a label filter
 *   (`labels`) and another sample type (`sampleType`): the hot function and line, a function-level
 *   profile that says so and is never shown as line rows, allocations in bytes or objects;
 * - a run of the worker-pool fixture (suggest-pool: Express 5 + piscina): the headline, hot lines and
 *   explain name the worker's function and the threads it ran in, from the run and from its main
 *   profile on disk (with `<profile>.threads.json`).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { APPS, CLI, marker, ROOT, waitForNoProcesses } from '../helpers/cli';
import { gzipPprof } from '../helpers/pprofBuilder';
import { PRODUCER, runNode, wallProfileFromAway } from '../helpers/pprofProducer';

const BUDGET = 8000;
const SOURCE = fs.readFileSync(PRODUCER, 'utf8').split('\n');
const lineOf = (text: string) => SOURCE.findIndex((l) => l.includes(text)) + 1;
const declOf = (name: string) => SOURCE.findIndex((l) => l.startsWith(`function ${name}(`)) + 1;

interface ToolResult { content: Array<{ type: string; text?: string }>; structuredContent?: any; isError?: boolean }

async function connect(root: string): Promise<Client> {
  const client = new Client({ name: 'hotpath-test', version: '1.0.0' }, { capabilities: { roots: {} } });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: `file://${root}`, name: 'app' }] }));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: os.tmpdir(), stderr: 'pipe' }));
  return client;
}

const textOf = (r: ToolResult) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const r = await client.callTool({ name, arguments: args }) as ToolResult;
  assert.ok(textOf(r).length <= BUDGET && JSON.stringify(r.structuredContent ?? {}).length <= BUDGET, `${name}: the answer fits ${BUDGET} characters`);
  return r;
}

async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const r = await call(client, name, args);
  assert.ok(!r.isError, `${name} ${JSON.stringify(args)} failed: ${textOf(r)}`);
  return r;
}

const run = runNode;

describe('hotpath mcp: read tools on pprof, 0x and a run\'s worker threads', function () {
  this.timeout(600_000);

  describe('production profiles (pprof, 0x)', () => {
    let dir: string;
    let client: Client;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-mcp-pprof-'));
      for (const mode of ['datadog-wall', 'datadog-default', 'datadog-heap']) await run([PRODUCER, mode, path.join(dir, `${mode}.pb.gz`)], dir);
      client = await connect(APPS);
    });
    after(async () => {
      await client?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('pprof with lines: the hot line first, what the profile is, and explain of its function', async () => {
      const file = path.join(dir, 'datadog-wall.pb.gz');
      const r = await ok(client, 'hotpath_hot_lines', { profile: file, limit: 5 });
      const rows = r.structuredContent.sections.lines[0].rows;
      assert.equal(rows[0].location, `pprof-producer.js:${lineOf('// hot line')}`, JSON.stringify(rows));
      assert.equal(rows[0].function, 'hotLoop');
      assert.match(textOf(r), /Format: pprof from `@datadog\/pprof`; shown: `wall`/);
      assert.match(textOf(r), /Line-level: leaf frames carry the sampled line/);
      const explain = await ok(client, 'hotpath_explain', { profile: file, file: 'pprof-producer.js', function: 'hotLoop' });
      assert.match(textOf(explain).split('\n')[0], new RegExp(`^\`hotLoop\` \\(\`pprof-producer\\.js:${declOf('hotLoop')}\`\\): .* · hottest line ${lineOf('// hot line')} `));
      const report = await ok(client, 'hotpath_report', { profile: file, sections: ['origin', 'lines'] });
      assert.match(textOf(report), /Format: pprof from `@datadog\/pprof`/);
      assert.match(textOf(report), new RegExp(`\`pprof-producer\\.js:${lineOf('// hot line')}\``));
    });

    it('a function-level pprof: said first, its functions at their declarations, never as line rows', async () => {
      const file = path.join(dir, 'datadog-default.pb.gz');
      const r = await ok(client, 'hotpath_hot_lines', { profile: file });
      assert.match(textOf(r).split('\n')[0], new RegExp(`^Function-level profile: no line-level time .* top function \`hotLoop\` at \`pprof-producer\\.js:${declOf('hotLoop')}\` \\(its declaration\\)`));
      assert.equal(r.structuredContent.sections.lines, undefined, 'no line rows');
      assert.equal(r.structuredContent.sections.hotspots[0].rows[0].function, 'hotLoop');
      const explain = await ok(client, 'hotpath_explain', { profile: file, file: 'pprof-producer.js', line: declOf('hotLoop') + 2 });
      assert.match(textOf(explain).split('\n')[0], /^`hotLoop` .* · function-level profile \(no line heat\)$/);
      assert.doesNotMatch(textOf(explain), /Its hot lines/);
      const report = await ok(client, 'hotpath_report', { profile: file });
      assert.match(textOf(report).split('\n')[0], /function-level profile/);
      assert.match(textOf(report), /\*\*Hot lines\*\*\n\nNone: a function-level profile records no lines/);
    });

    it('a heap pprof: allocation sites in bytes, or objects with `sampleType`; never milliseconds', async () => {
      const file = path.join(dir, 'datadog-heap.pb.gz');
      const bytes = await ok(client, 'hotpath_hot_lines', { profile: file });
      assert.match(textOf(bytes).split('\n')[0], new RegExp(`^\`makeRecords\` in \`pprof-producer\\.js:${declOf('makeRecords')}\`: [\\d.]+% of \`inuse_space\` \\([\\d.]+ MB\\) · heap profile`));
      assert.match(textOf(bytes), /\| Function \| Location \| Bytes \| Share \| Where \|/);
      assert.doesNotMatch(textOf(bytes), /\bms\b/);
      const objects = await ok(client, 'hotpath_hot_lines', { profile: file, sampleType: 'inuse_objects' });
      assert.match(textOf(objects), /\| Function \| Location \| Objects \| Share \| Where \|/);
      assert.match(textOf(objects).split('\n')[0], /of `inuse_objects` \([\d,]+ objects\)/);
      const explain = await ok(client, 'hotpath_explain', { profile: file, file: 'pprof-producer.js', function: 'makeRecords' });
      assert.match(textOf(explain), /of [\d.]+ MB `inuse_space` in the profile/);
      const wrong = await call(client, 'hotpath_hot_lines', { profile: file, sampleType: 'cpu' });
      assert.equal(wrong.isError, true);
      assert.match(textOf(wrong), /inuse_space/, 'the error names the sample types there are');
    });

    it('`labels` keeps the samples of one label value', async () => {
      const file = path.join(dir, 'labels.pb.gz');
      const frame = (name: string) => ({ name, file: PRODUCER, startLine: declOf(name), line: declOf(name) });
      fs.writeFileSync(file, gzipPprof({
        types: [['cpu', 'nanoseconds']],
        samples: [
          { stack: [frame('hotLoop'), frame('busy')], values: [80_000_000], labels: { 'trace endpoint': 'GET /busy' } },
          { stack: [frame('makeRecords'), frame('allocateFor')], values: [20_000_000], labels: { 'trace endpoint': 'GET /records' } },
        ],
      }));
      const all = await ok(client, 'hotpath_hot_lines', { profile: file });
      assert.equal(all.structuredContent.sections.hotspots[0].rows[0].function, 'hotLoop');
      assert.match(textOf(all), /By label "`trace endpoint`" \(100\.0% of the samples carry it\): `GET \/busy` 80\.0%, `GET \/records` 20\.0%/);
      const records = await ok(client, 'hotpath_hot_lines', { profile: file, labels: ['trace endpoint=GET /records'] });
      assert.equal(records.structuredContent.sections.hotspots[0].rows[0].function, 'makeRecords');
      assert.match(textOf(records), /Label filter `trace endpoint=GET \/records`: 1 of 2 samples kept/);
      const report = await ok(client, 'hotpath_report', { profile: file, labels: ['trace endpoint=GET /records'], sections: ['summary'] });
      assert.match(textOf(report), /Top user-code hotspot: `makeRecords`/);
    });

    it('another machine\'s paths: not found (and why) until `mapPath` says where they are', async () => {
      const file = path.join(dir, 'away.pb.gz');
      const remote = await wallProfileFromAway(file);
      const deployed = path.dirname(remote);
      const flat = await ok(client, 'hotpath_hot_lines', { profile: file, limit: 3 });
      assert.ok(textOf(flat).includes(`not found: \`${remote}\` — \`only its file name matches`), textOf(flat));
      assert.ok(flat.structuredContent.sections.lines[0].rows.every((row: { location: string }) => !row.location.startsWith('pprof-producer.js')), 'nothing on a file that merely has the same name');
      const mapped = await ok(client, 'hotpath_hot_lines', { profile: file, limit: 3, mapPath: { [deployed]: '.' } });
      assert.equal(mapped.structuredContent.sections.lines[0].rows[0].location, `pprof-producer.js:${lineOf('// hot line')}`, textOf(mapped));
      assert.match(textOf(mapped), /Paths: 2 of 2 files found in the workspace \((1 as-is, )?1 mapping\)/);
    });

    it('a 0x capture (its output folder): function level, the hot function at its declaration', async () => {
      const out = path.join(dir, 'capture.0x');
      // No inlining: V8's tick log names the optimized function a tick is in, so an inlined hotLoop would be busy's.
      await run([path.join(ROOT, 'node_modules', '0x', 'cmd.js'), '--collect-only', '-D', out, '--', process.execPath, '--no-turbo-inlining', PRODUCER, 'plain'], dir);
      const r = await ok(client, 'hotpath_hot_lines', { profile: out });
      assert.match(textOf(r).split('\n')[0], new RegExp(`^Function-level profile: .* top function \`hotLoop\` at \`pprof-producer\\.js:${declOf('hotLoop')}\``));
      assert.match(textOf(r), /Format: 0x capture/);
      const explain = await ok(client, 'hotpath_explain', { profile: out, file: 'pprof-producer.js', function: 'hotLoop' });
      assert.match(textOf(explain), /This is a function-level profile/);
    });

    it('the read options apply to a profile file only; a bad label is refused saying the form', async () => {
      const r = await call(client, 'hotpath_hot_lines', { profile: path.join(dir, 'datadog-wall.pb.gz'), labels: ['endpoint'] });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /`labels`: "endpoint" is not "KEY=VALUE"/);
    });
  });

  describe('a run with worker threads (suggest-pool: Express 5 + piscina)', () => {
    const APP = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'suggest-pool');
    const WORKER = 'lib/suggest-worker.js';
    const workerThread = /^worker \d+ \(worker\.js\)$/;
    let root: string;
    let client: Client;
    let tag: string;
    let runId: string;
    let profilePath: string;
    before(async () => {
      root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-mcp-pool-')));
      for (const f of ['server.js', 'package.json']) fs.copyFileSync(path.join(APP, f), path.join(root, f));
      fs.cpSync(path.join(APP, 'lib'), path.join(root, 'lib'), { recursive: true });
      fs.symlinkSync(path.join(APP, 'node_modules'), path.join(root, 'node_modules'), 'dir');
      tag = marker();
      client = await connect(root);
    });
    after(async () => {
      await client?.close();
      assert.deepEqual(await waitForNoProcesses(tag, 15_000), [], 'the app and its workers stopped');
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('profile: the headline names the worker\'s function and its thread', async () => {
      let r = await ok(client, 'hotpath_profile', { command: ['node', 'server.js', tag], env: { NODE_ENV: 'production', PORT: '0' }, duration: 3, warmup: 2, connections: 4 });
      for (let i = 0; i < 20 && r.structuredContent.status === 'running'; i++) r = await ok(client, 'hotpath_status', { runId: r.structuredContent.runId });
      runId = r.structuredContent.runId;
      const first = textOf(r).split('\n')[0];
      assert.match(first, /^`levenshtein` in `lib\/suggest-worker\.js:\d+` on thread `worker \d+ \(worker\.js\)`: [\d.]+% own of its thread's time/, first);
      profilePath = /Profile: `([^`]+\.cpuprofile)`/.exec(textOf(r))?.[1] ?? '';
      assert.ok(profilePath && fs.existsSync(path.resolve(root, profilePath)), textOf(r));
      assert.ok(fs.existsSync(`${path.resolve(root, profilePath)}.threads.json`), 'the run lists its threads beside its main profile');
    });

    it('hot lines and explain: the worker\'s lines, with the threads they ran in, as the editor shows them', async () => {
      const r = await ok(client, 'hotpath_hot_lines', { runId, limit: 5 });
      const rows = r.structuredContent.sections.lines[0].rows as Array<{ location: string; function: string; thread: string }>;
      // levenshtein's hottest line among the first rows, not necessarily the first: a parked pool thread's
      // Atomics.wait is sampled by V8 as JavaScript (piscina's atomicsWaitLoop), and when the workers
      // waited more than they worked (CI: 24.0% against 22.6%) that line ranks above it.
      const hot = rows.find((row) => row.function === 'levenshtein');
      assert.ok(hot && hot.location.startsWith(`${WORKER}:`), JSON.stringify(rows));
      assert.ok(rows.every((row) => row.function === 'levenshtein' || row.function === 'atomicsWaitLoop' || rows.indexOf(row) > rows.indexOf(hot)), JSON.stringify(rows));
      for (const t of hot.thread.split(', ')) assert.match(t, workerThread, hot.thread);
      assert.match(textOf(r), /Shares are of all 3 threads' time together \(main, worker 1 \(worker\.js\), worker 2 \(worker\.js\)\)/);
      const explain = await ok(client, 'hotpath_explain', { runId, file: WORKER, function: 'levenshtein' });
      const text = textOf(explain);
      assert.match(text.split('\n')[0], /^`levenshtein` \(`lib\/suggest-worker\.js:\d+`, `(2 worker threads|worker \d \(worker\.js\))`\): [\d.]+% own · [\d.]+% total of all 3 threads/, text.split('\n')[0]);
      assert.match(text, /Ran in `worker \d \(worker\.js\)`/);
    });

    it('the run\'s main profile on disk: the same rows, and hotpath report\'s per-thread hotspots', async () => {
      const fromRun = await ok(client, 'hotpath_hot_lines', { runId, limit: 3 });
      const fromFile = await ok(client, 'hotpath_hot_lines', { profile: profilePath, limit: 3 });
      assert.deepEqual(fromFile.structuredContent.sections.lines, fromRun.structuredContent.sections.lines);
      const report = await ok(client, 'hotpath_report', { profile: profilePath, sections: ['hotspots'], limit: 5 });
      const hot = report.structuredContent.sections.hotspots[0].rows.find((h: { function: string }) => h.function === 'levenshtein');
      assert.ok(hot, textOf(report));
      assert.match(hot.thread, workerThread);
      assert.match(textOf(report).split('\n')[0], /^`levenshtein` in `lib\/suggest-worker\.js:\d+` on thread `worker \d+ \(worker\.js\)`/);
      const refused = await call(client, 'hotpath_hot_lines', { runId, sampleType: 'wall' });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /`sampleType` read a production profile file: give it as `profile`/);
    });
  });
});
