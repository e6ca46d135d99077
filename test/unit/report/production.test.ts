/**
 * A production profile's facts are in the report model, so every surface carries them: where it came
 * from (format, producer, the sample type shown and the others, lines or functions only, when it was
 * recorded, the label filter and breakdown, paths mapped and not found), a heap profile's allocation
 * sites in its own unit, and what `--pprof` wrote — in the terminal (the CLI's text), Markdown
 * (`--md`, agents, CI) and the agents' JSON. A function-level profile says so on each, and never shows
 * an empty line table as if the profile had no hot lines.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildReport, renderJson, renderMarkdown, renderTerminal } from '../../../src/core/report';
import { reportProfile } from '../../../src/core/workflow/report';
import { gzipPprof } from '../../helpers/pprofBuilder';

describe('report model: production profiles (pprof, 0x)', function () {
  this.timeout(30_000);
  let dir: string;
  let app: string;
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-production-')));
    app = path.join(dir, 'work');
    fs.mkdirSync(path.join(app, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(app, 'lib', 'orders.js'), 'function listOrders() {\n  return 1;\n}\nmodule.exports = { listOrders };\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** @datadog/pprof-like: frames on their functions' start lines (function level), labels, another machine's paths. */
  function functionLevel(): string {
    const file = path.join(dir, 'wall.pb.gz');
    const samples = [];
    for (let i = 0; i < 40; i++) {
      samples.push({ stack: [{ name: 'listOrders', file: '/srv/app/lib/orders.js', startLine: 1, line: 1 }], values: [1, 3_000_000], labels: { 'trace endpoint': i % 4 ? 'GET /orders' : 'GET /report' } });
      if (i % 4 === 0) samples.push({ stack: [{ name: 'render', file: '/srv/app/views/render.js', startLine: 5, line: 5 }], values: [1, 1_000_000] });
    }
    fs.writeFileSync(file, gzipPprof({ types: [['sample', 'count'], ['wall', 'nanoseconds']], samples, timeNanos: 1_700_000_000_000_000_000 }));
    return file;
  }

  it('function level: origin, labels and unmapped paths in Markdown and JSON; no empty line table passed off as line heat', async () => {
    const r = await reportProfile(functionLevel(), { read: { pathMap: { roots: [app] } } });
    const report = buildReport(r, { cwd: app });
    const md = renderMarkdown(report, { cwd: app });
    const headline = md.split('\n')[0];
    assert.match(headline, /^`listOrders` in `lib\/orders\.js:1`: .* · function-level profile/, headline);
    assert.match(md, /Format: pprof from `@datadog\/pprof`; shown: `wall` \(`nanoseconds`, the default\); also in the profile: `sample`/);
    assert.match(md, /This is a function-level profile/);
    assert.match(md, /Recorded 2023-11-14T22:13:20\.000Z/);
    assert.match(md, /By label "`trace endpoint`" \(\d+\.\d% of the samples carry it\): `GET \/orders` \d/);
    assert.match(md, /Paths: 1 of 2 files found in the workspace/);
    assert.match(md, /- not found: `\/srv\/app\/views\/render\.js` — /);
    // The hot-lines section says why it has no rows instead of an empty table.
    assert.doesNotMatch(md, /\| Line \| Own \| Self \| Total \| What runs there \|\n\|---\|---\|---\|---\|---\|\n\n/);
    assert.match(md, /\*\*Hot lines\*\*\n\nNone: a function-level profile records no lines/);
    const json = renderJson(report, { cwd: app });
    assert.match(json.headline, /function-level profile/);
    const origin = JSON.stringify(json.sections.origin);
    assert.match(origin, /This is a function-level profile/);
    assert.match(origin, /not found: \/srv\/app\/views\/render\.js/);
    assert.match(JSON.stringify(json.sections.lines), /None: a function-level profile records no lines/);
    // The terminal: the origin right after the title line, as the CLI has printed it.
    const terminal = renderTerminal(report, { cwd: app }).split('\n');
    assert.match(terminal[0], /^Hotpath report: /);
    assert.match(terminal[1], /^Format: pprof from @datadog\/pprof; shown: wall \(nanoseconds, the default\); also in the profile: sample \(--sample-type\)$/);
    assert.match(terminal[2], /^This is a function-level profile: /);
  });

  it('a label filter: what was kept, in every renderer', async () => {
    const r = await reportProfile(functionLevel(), { read: { pathMap: { roots: [app] }, labels: [{ key: 'trace endpoint', value: 'GET /report' }] } });
    const report = buildReport(r, { cwd: app });
    assert.match(renderMarkdown(report, { cwd: app }), /Label filter `trace endpoint=GET \/report`: 10 of 50 samples kept/);
    assert.match(renderTerminal(report, { cwd: app }), /\nLabel filter trace endpoint=GET \/report: 10 of 50 samples kept\n/);
  });

  it('a heap profile: allocation sites in bytes (never ms), with the headline naming the top site', async () => {
    const file = path.join(dir, 'heap.pb.gz');
    fs.writeFileSync(file, gzipPprof({
      types: [['inuse_objects', 'count'], ['inuse_space', 'bytes']],
      samples: [
        { stack: [{ name: 'listOrders', file: path.join(app, 'lib', 'orders.js'), startLine: 1, line: 1 }], values: [10, 3_000_000] },
        { stack: [{ name: 'parse', file: path.join(app, 'node_modules', 'dep', 'index.js'), startLine: 1, line: 1 }], values: [1, 1_000] },
      ],
    }));
    const r = await reportProfile(file, { read: { pathMap: { roots: [app] } } });
    const report = buildReport(r, { cwd: app });
    const md = renderMarkdown(report, { cwd: app });
    assert.match(md.split('\n')[0], /^`listOrders` in `lib\/orders\.js:1`: 100\.0% of `inuse_space` \(2\.86 MB\) · heap profile, function level/, md.split('\n')[0]);
    assert.match(md, /\| Function \| Location \| Bytes \| Share \| Where \|/);
    assert.match(md, /\| `listOrders` \| `lib\/orders\.js:1` \| 2\.86 MB \| 100\.0% \|/);
    assert.doesNotMatch(md, / ms\b/, 'bytes are never shown as milliseconds');
    const json = renderJson(report, { cwd: app });
    const sites = (json.sections.memory.find((b) => typeof b === 'object' && b !== null && 'rows' in b) as { rows: Array<Record<string, unknown>> }).rows;
    assert.equal(sites[0].function, 'listOrders');
    assert.equal(sites[0].amount, 3_000_000);
    assert.match(renderTerminal(report, { cwd: app }), /\ninuse_space: 2\.86 MB in all\.\nSites \(by function: heap profiles record the allocating function, not the line\):\nFunction {4}Location/);
  });

  it('what --pprof wrote is in the model (report: the export; other runs: each file written)', async () => {
    const file = functionLevel();
    const out = path.join(dir, 'export.pb.gz');
    const r = await reportProfile(file, { read: { pathMap: { roots: [app] } }, pprofOut: out, cwd: app });
    const report = buildReport(r, { cwd: dir });
    assert.match(renderMarkdown(report, { cwd: dir }), /pprof: `export\.pb\.gz` \(`cpu` 130 ms, idle left out; 50 samples; call-site lines on 0 of 0 caller frames of your code\)/);
    assert.match(renderTerminal(report, { cwd: dir }), /\n\npprof: export\.pb\.gz \(cpu 130 ms, idle left out; 50 samples; call-site lines on 0 of 0 caller frames of your code\)\n$/);
    assert.ok(fs.existsSync(out));
  });
});
