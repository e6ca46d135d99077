// The VS Code layer's logic that needs no editor: command lines, targets, edit tracking, labels,
// status rendering and launch.json conversion. (The editor wiring is tested in real VS Code: test/e2e.)
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { joinCommandLine, splitCommandLine } from '../../../src/vscode/targets/commandLine';
import { effectiveNodeEnv, resolveTarget, targetToSettings } from '../../../src/vscode/targets/targetSpec';
import { mapLine, mapLineThroughEdits } from '../../../src/vscode/annotations/lineTracking';
import { codeLensText, deoptHover, deoptLabel, formatMs, heatBucket, lineHeat, lineHover, lineLabel, v8FunctionMarkdown } from '../../../src/vscode/annotations/format';
import { mdCode, mdEscape, noIcons, renderStatus } from '../../../src/vscode/status/render';
import { requestFromLaunchConfig } from '../../../src/vscode/debug/launchConfig';
import { compareRuns } from '../../../src/core/stats/compare';

describe('vscode layer (pure parts)', () => {
  describe('splitCommandLine', () => {
    it('splits like a shell without running one', () => {
      assert.deepEqual(splitCommandLine('node server.js --port 3000'), ['node', 'server.js', '--port', '3000']);
      assert.deepEqual(splitCommandLine(`node "my app.js" 'a b' c\\ d`), ['node', 'my app.js', 'a b', 'c d']);
      assert.deepEqual(splitCommandLine('node -e "console.log(\\"x\\")"'), ['node', '-e', 'console.log("x")']);
      assert.deepEqual(splitCommandLine('echo a | b'), ['echo', 'a', '|', 'b']);
      assert.deepEqual(splitCommandLine('  '), []);
      assert.deepEqual(splitCommandLine(`x ""`), ['x', '']);
    });
    it('rejects an unclosed quote with a message naming it', () => {
      assert.throws(() => splitCommandLine('node "server.js'), /Unclosed double quote/);
    });
    it('joinCommandLine round-trips', () => {
      for (const words of [['node', 'a b.js'], ["it's", 'x'], ['npm', 'run', 'dev']]) {
        assert.deepEqual(splitCommandLine(joinCommandLine(words)), words);
      }
    });
  });

  describe('targets', () => {
    it('resolves command strings, cwd and env against the folder', () => {
      const t = resolveTarget({ name: 'api', command: 'node server.js', cwd: 'packages/api', env: { PORT: '0' }, method: 'post' }, '/ws');
      assert.deepEqual(t, { name: 'api', command: ['node', 'server.js'], cwd: path.resolve('/ws/packages/api'), env: { PORT: '0' }, method: 'POST' });
      assert.deepEqual(targetToSettings(t, '/ws'), { name: 'api', command: ['node', 'server.js'], cwd: 'packages/api', env: { PORT: '0' }, method: 'POST' });
    });
    it('says which field is wrong', () => {
      assert.throws(() => resolveTarget({ command: ['node'] }, '/ws'), /no "name"/);
      assert.throws(() => resolveTarget({ name: 'a', command: 3 }, '/ws'), /needs "command"/);
      assert.throws(() => resolveTarget({ name: 'a', command: [] }, '/ws'), /empty command/);
      assert.throws(() => resolveTarget({ name: 'a', command: 'x', env: { A: 1 } }, '/ws'), /"env" must map/);
    });
    it('NODE_ENV comes from the target, else the host', () => {
      const t = resolveTarget({ name: 'a', command: 'x' }, '/ws');
      assert.equal(effectiveNodeEnv(t, {}), undefined);
      assert.equal(effectiveNodeEnv(t, { NODE_ENV: 'production' }), 'production');
      assert.equal(effectiveNodeEnv({ ...t, env: { NODE_ENV: 'development' } }, { NODE_ENV: 'production' }), 'development');
    });
  });

  describe('line tracking', () => {
    const insertAbove = (line: number, n: number) => ({ startLine: line, endLine: line, insertedLines: n, pureInsertAbove: true });
    it('moves lines below an edit and drops lines whose text changed', () => {
      assert.equal(mapLine(10, insertAbove(3, 2)), 12);
      assert.equal(mapLine(3, insertAbove(3, 2)), 5, 'a whole-line insertion above keeps the line');
      assert.equal(mapLine(2, insertAbove(3, 2)), 2);
      assert.equal(mapLine(5, { startLine: 5, endLine: 5, insertedLines: 0, pureInsertAbove: false }), -1, 'typing in the line');
      assert.equal(mapLine(9, { startLine: 4, endLine: 7, insertedLines: 0, pureInsertAbove: false }), 6, 'three lines joined');
      assert.equal(mapLine(6, { startLine: 4, endLine: 7, insertedLines: 0, pureInsertAbove: false }), -1);
    });
    it('applies several edits of one event bottom-up', () => {
      const edits = [insertAbove(2, 1), insertAbove(8, 3)];
      assert.equal(mapLineThroughEdits(10, edits), 14);
      assert.equal(mapLineThroughEdits(5, edits), 6);
      assert.equal(mapLineThroughEdits(5, [...edits, { startLine: 5, endLine: 5, insertedLines: 0, pureInsertAbove: false }]), -1);
      assert.equal(mapLineThroughEdits(9, [...edits, { startLine: 5, endLine: 5, insertedLines: 0, pureInsertAbove: false }]), 13);
    });
  });

  describe('labels and hovers', () => {
    const f = { function: 'render', file: '/app/t.js', line: 60, selfMs: 410.4, selfPct: 12.34, totalMs: 1020, totalPct: 31, ownMs: 410.4, ownPct: 12.34, ownParts: [], rank: 1, callers: [] };
    const line = { file: '', line: 1, selfMs: 61.2, selfPct: 4.21, totalMs: 61.2, totalPct: 4.21, ownMs: 61.2, ownPct: 4.21, samples: 61, function: 'f', placement: 'own' as const, calls: [], callers: [] };
    it('CodeLens: self, total, time; V8 summary and edit note when given', () => {
      assert.equal(codeLensText(f), '12.3% self · 31.0% total · 410 ms');
      assert.equal(codeLensText(f, 'TurboFan · 2 deopts (wrong map)', true), '12.3% self · 31.0% total · 410 ms · TurboFan · 2 deopts (wrong map) · edited since profiling');
    });
    it('CodeLens: own cost first when the callees carry it, and inlined code not placed', () => {
      const signingKey = { ...f, function: 'signingKey', selfMs: 3, selfPct: 0.1, totalMs: 2563, totalPct: 85.2, ownMs: 2560, ownPct: 85.04,
        ownParts: [{ function: 'pbkdf2Sync', where: 'native, node:crypto', file: 'node:internal/crypto/pbkdf2', line: 62, ms: 2530, pct: 84.02, callLine: 10 }],
        notPlaced: { ms: 40, pct: 1.3, reasons: ['inlined code from another function (the profile does not say which)'] } };
      assert.equal(codeLensText(signingKey), '85.0% own (84.0% in pbkdf2Sync, native, node:crypto) · 0.1% self · 85.2% total · 2,560 ms · 1.3% inlined code not placed');
    });
    it('line labels and heat buckets', () => {
      assert.equal(lineLabel(line), '4.2% · 61.2 ms');
      assert.equal(lineLabel({ ...line, selfMs: 2, selfPct: 0.1, totalMs: 2563, totalPct: 84.1, ownPct: 84, calls: [{ function: 'pbkdf2Sync', where: 'node:crypto', file: '', line: null, ms: 2560, pct: 84 }] }), '84.1% total · 0.1% self');
      assert.equal(lineLabel({ ...line, placement: 'inlined', inlinedInto: 'handle' }), '4.2% · 61.2 ms (inlined)');
      assert.deepEqual(lineHeat({ ...line, selfPct: 0, ownPct: 0, totalPct: 40 }), { kind: 'call', bucket: 4 });
      assert.deepEqual(lineHeat({ ...line, selfPct: 0.1, ownPct: 84, totalPct: 84.1 }), { kind: 'own', bucket: 4 });
      assert.deepEqual([0.2, 1, 2.9, 3, 9.9, 10, 50].map(heatBucket), [1, 2, 2, 3, 3, 4, 4]);
      assert.equal(formatMs(1234.5), '1,235 ms');
      assert.equal(formatMs(1.234), '1.23 ms');
    });
    it('hovers escape profile-controlled text', () => {
      const md = lineHover({ ...line, file: '/a.js', line: 3, selfMs: 5, selfPct: 1, samples: 5, function: '<img src=x onerror=alert(1)>*', placement: 'inlined', inlinedInto: '[x](command:evil)', callers: [{ function: '`bad`', file: '/b.js', line: 2, callSite: true, sharePct: 80 }] }, 'p.cpuprofile', (x) => x);
      // Names sit in code spans (rendered literally, never as links or HTML) fenced longer than any backtick run inside.
      assert.ok(md.includes('`<img src=x onerror=alert(1)>*`'), md);
      assert.ok(md.includes('`[x](command:evil)`'), md);
      assert.ok(md.includes('`` `bad` ``'), md);
      assert.ok(!/[^`]\[x\]\(command/.test(md.replace(/`[^`]*`/g, '')), md);
      assert.match(md, /Self time\*\*: 5\.00 ms \(1\.0% of the profile\), ≈ 5 samples/);
      assert.match(md, /Top callers/);
      assert.match(md, /ran inlined into/);
    });
    it('line hover: calls made here with where they ran; own and total', () => {
      const md = lineHover({ ...line, line: 10, selfMs: 2, selfPct: 0.1, totalMs: 2563, totalPct: 84.1, ownMs: 2560, ownPct: 84,
        calls: [{ function: 'pbkdf2Sync', where: 'native, node:crypto', file: '', line: null, ms: 2560, pct: 84 }] }, 'p.cpuprofile', (x) => x);
      assert.ok(md.includes('→ `pbkdf2Sync` (native, node\\:crypto) 84.0%'), md);
      assert.match(md, /\*\*Total\*\*: 2,563 ms \(84\.1%\)/);
    });
    it('V8 hover and deopt texts: explanation and fix, OSR exits labelled, names escaped', () => {
      const explanation = { title: 'Wrong map', text: 'The object had another shape.', fix: 'Keep shapes consistent.' };
      const md = v8FunctionMarkdown({
        tier: 'TurboFan', optimizations: 3,
        deopts: [{ kind: 'deopt-eager', reason: 'wrong map', file: '/app/a.js', line: 12, column: 5, count: 2, osr: false, explanation }, { kind: 'deopt-eager', reason: 'OSR', file: '', line: 0, column: 0, count: 4, osr: true }],
        inlined: ['add (/app/a.js:3)'], inlinedInto: [],
      });
      assert.match(md, /TurboFan · optimized 3×/);
      // (Markdown-escaped text: `\-` and `\.` render as - and .)
      assert.ok(md.includes('- wrong map (deopt\\-eager) ×2 at a\\.js:12'), md);
      assert.ok(md.includes('**Fix**: Keep shapes consistent\\.'), md);
      assert.ok(md.includes('4 on-stack-replacement exits not counted'), md);
      assert.ok(md.includes('**Inlined into it**: `add (/app/a.js:3)`'), md);
      const d = { file: '/a.js', line: 12, column: 5, function: 'f<script>', kind: 'deopt-eager', reason: 'not a Smi', count: 3, explanation };
      assert.equal(deoptLabel(d), 'deopt: not a Smi ×3');
      assert.match(deoptHover(d), /V8 deoptimized `f<script>` here\*\*: not a Smi/);
    });
    it('mdEscape and noIcons', () => {
      assert.equal(mdEscape('a*b_[c](d)'), 'a\\*b\\_\\[c\\]\\(d\\)');
      assert.ok(!noIcons('$(bug) x').includes('$('));
      assert.equal(mdCode('a'), '`a`');
      assert.equal(mdCode('a`b'), '``a`b``');
      assert.equal(mdCode('`x`'), '`` `x` ``');
    });
  });

  describe('status bar rendering', () => {
    it('idle, running with live req/s, profiled, baseline', () => {
      assert.equal(renderStatus({ kind: 'idle' }).text, '$(pulse) Hotpath');
      assert.equal(renderStatus({ kind: 'running', title: 'Profile with Load', stage: 'profiling', requestsPerSecond: 5820.4 }).text, '$(loading~spin) Profiling… 5,820 req/s');
      assert.equal(renderStatus({ kind: 'profiled', function: 'render', selfPct: 41.23, ownPct: 41.23, file: '/a.js', line: 3, profilePath: '/p' }).text, '$(flame) render 41.2% self');
      assert.equal(renderStatus({ kind: 'profiled', function: 'signingKey', selfPct: 0.1, ownPct: 85, ownDetail: '84.0% in pbkdf2Sync, native, node:crypto', file: '/a.js', line: 3, profilePath: '/p' }).text, '$(flame) signingKey 85.0% own');
      assert.equal(renderStatus({ kind: 'baseline', name: 'shop', requestsPerSecond: 5820, p99Ms: 3.2, runs: 3, file: '/b' }).text, '$(pulse) 5,820 req/s baseline');
    });
    it('verify: change vs baseline, tone by verdict, CI and links in the tooltip', () => {
      const run = (r: number) => ({ requestsPerSecond: r, p99Ms: 10, p50Ms: 5, errors: 0, perSecond: [] });
      const faster = compareRuns([run(1000), run(1010), run(990)], [run(2000), run(2020), run(1980)]);
      const r = renderStatus({ kind: 'verified', name: 'shop', comparison: faster, warnings: ['Node differs'] });
      assert.equal(r.text, '$(pulse) 2,000 req/s +100% vs baseline');
      assert.equal(r.tone, 'faster');
      assert.match(r.tooltip, /\| req\/s \| 1,000 \| 2,000 \| \+100% \*\*✓\*\* \| \+\d+\.\d% … \+\d+\.\d% \|/);
      assert.match(r.tooltip, /97\.5% CI/);
      assert.match(r.tooltip, /Bonferroni/);
      assert.match(r.tooltip, /command:hotpath\.verifyAgainstBaseline/);
      assert.match(r.tooltip, /Node differs/);
      const same = compareRuns([run(1000), run(1100), run(900)], [run(1010), run(900), run(1100)]);
      const s = renderStatus({ kind: 'verified', name: 'shop', comparison: same, warnings: [] });
      assert.equal(s.tone, 'neutral');
      assert.match(s.text, /vs baseline \(no significant change\)$/);
      const slower = compareRuns([run(2000), run(2020), run(1980)], [run(1000), run(1010), run(990)]);
      assert.equal(renderStatus({ kind: 'verified', name: 'x', comparison: slower, warnings: [] }).tone, 'slower');
      assert.match(renderStatus({ kind: 'verified', name: 'x', comparison: slower, warnings: [] }).text, /−50% vs baseline/);
    });
  });

  describe('launch.json configurations', () => {
    const defaults = { load: { connections: 10, durationSeconds: 10, path: '/' }, runs: 3, samplingIntervalMicros: 1000 };
    it('program + args, cwd relative to the folder, load merged over the settings', () => {
      const r = requestFromLaunchConfig({ mode: 'profile', program: 'server.js', args: ['--x'], cwd: 'app', env: { NODE_ENV: 'production', DROP: null as unknown as string }, load: { durationSeconds: 3 } }, '/ws', defaults);
      assert.equal(r.kind, 'profile');
      if (r.kind !== 'profile') return;
      assert.deepEqual(r.target.command, ['node', 'server.js', '--x']);
      assert.equal(r.target.cwd, path.resolve('/ws/app'));
      assert.deepEqual(r.target.env, { NODE_ENV: 'production' });
      assert.deepEqual(r.settings.load, { connections: 10, durationSeconds: 3, path: '/' });
    });
    it('baseline/verify get a baseline name; bad configs say what to write', () => {
      const b = requestFromLaunchConfig({ mode: 'baseline', command: ['npm', 'start'], baselineName: 'My API' }, '/ws', defaults);
      assert.equal(b.kind === 'baseline' && b.baselineName, 'my-api');
      const v = requestFromLaunchConfig({ mode: 'verify', program: '/ws/server.js' }, '/ws', defaults);
      assert.equal(v.kind === 'verify' && v.baselineName, 'server');
      assert.throws(() => requestFromLaunchConfig({ mode: 'profile' }, '/ws', defaults), /needs "program".*"command"/);
      assert.throws(() => requestFromLaunchConfig({ mode: 'fly' as 'profile', program: 'a.js' }, '/ws', defaults), /"mode" must be one of/);
      assert.throws(() => requestFromLaunchConfig({ mode: 'baseline', program: 'a.js', runs: 1 }, '/ws', defaults), /at least 2/);
    });
  });
});
