import * as assert from 'node:assert/strict';
import { compareMetricSamples, HTTP_METRICS } from '../../../src/core/stats/metrics';
import { STARTUP_METRICS } from '../../../src/core/workflow/startup';
import { formatSummary } from '../../../src/core/stats/formatComparison';
import { requestFromLaunchConfig } from '../../../src/vscode/debug/launchConfig';
import { revisionRows, runtimeRows } from '../../../src/vscode/compare/pickItems';
import { renderStatus } from '../../../src/vscode/status/render';

function comparison(ratio: number) {
  const a = [1000, 1010, 990, 1005, 995];
  const set = compareMetricSamples(HTTP_METRICS, {
    requestsPerSecond: { a, b: a.map((x, i) => x * ratio * (1 + (i % 2 ? 0.01 : -0.01))) },
    p99LatencyMs: { a: a.map(() => 10), b: a.map((_, i) => (10 / ratio) * (1 + (i % 2 ? 0.02 : -0.01))) },
    cpuMsPerRequest: { a: a.map(() => 1), b: a.map((_, i) => (1 / ratio) * (1 + (i % 2 ? 0.01 : -0.02))) },
    p50LatencyMs: { a: a.map(() => 3), b: a.map(() => 3 / ratio) },
  }, 'paired');
  return { ...set, summary: formatSummary(set), warnings: [], pairs: 5, elapsedMs: 61_000, stopReason: 'target', primary: 'requestsPerSecond' };
}

describe('vscode compare (pure parts)', () => {
  it('status bar: the change vs side A, tone by verdict, a tooltip with both sides, the table and the links', () => {
    const r = renderStatus({ kind: 'compared', sides: [{ label: '1a2b3c4', nodeVersion: 'v22.23.3', gitRev: '1a2b3c4d5e' }, { label: 'working tree (1a2b3c4 + changes)', nodeVersion: 'v22.23.3', gitRev: '1a2b3c4d5e' }], comparison: comparison(1.3), warnings: ['Something to know'], hasFlamegraph: true });
    assert.equal(r.text, '$(git-compare) +30% req/s vs 1a2b3c4');
    assert.equal(r.tone, 'faster');
    assert.equal(r.command, 'hotpath.showFlamegraph');
    assert.match(r.tooltip, /^\*\*Hotpath: compare\*\* — B is faster than A \(req\/s, p99 and CPU\/req moved\)/);
    assert.ok(r.tooltip.includes('**A**: 1a2b3c4 (Node v22\\.23\\.3) · **B**: working tree \\(1a2b3c4 \\+ changes\\) (Node v22\\.23\\.3)'), r.tooltip);
    assert.match(r.tooltip, /\| \| A \| B \| change \| 98\.33% CI \| p \|/);
    assert.match(r.tooltip, /\| req\/s \| 1,000 \| 1,29\d \| \+30% \*\*✓\*\* \|/);
    assert.match(r.tooltip, /5 interleaved pairs in 61 s; stopped because the interval reached its target/);
    assert.match(r.tooltip, /Bonferroni over 3 verdict metrics/);
    assert.match(r.tooltip, /\[\$\(flame\) Differential flamegraph\]\(command:hotpath\.showFlamegraph\) · \[\$\(refresh\) Compare again\]\(command:hotpath\.compareAgain\)/);
    const nodes = renderStatus({ kind: 'compared', sides: [{ label: 'Node 22.23.3', nodeVersion: 'v22.23.3', gitRev: null }, { label: 'Node 24.21.0', nodeVersion: 'v24.21.0', gitRev: null }], comparison: comparison(0.8), warnings: [], hasFlamegraph: false });
    assert.equal(nodes.text, '$(git-compare) Node 24.21.0 −20% req/s vs Node 22.23.3');
    assert.equal(nodes.tone, 'slower');
    assert.equal(nodes.command, 'hotpath.compareAgain');
    // Labels are the user's text: no icon syntax, no line breaks in the status bar.
    assert.ok(!renderStatus({ kind: 'compared', sides: [{ label: '$(bug)\nx', nodeVersion: null, gitRev: null }, { label: 'b', nodeVersion: null, gitRev: null }], comparison: comparison(1), warnings: [], hasFlamegraph: false }).text.includes('$(bug)'));
  });

  it('status bar: a startup comparison (an agent\'s) says it is one, and offers no palette comparison to repeat', () => {
    const set = compareMetricSamples(STARTUP_METRICS, { startupMs: { a: [100, 102, 98, 101, 99], b: [120, 123, 118, 121, 119] }, cpuMs: { a: [80, 81, 79, 80, 80], b: [96, 97, 95, 96, 96] } }, 'paired');
    const r = renderStatus({
      kind: 'compared', subject: 'startup', sides: [{ label: 'Node 22.23.3', nodeVersion: 'v22.23.3', gitRev: null }, { label: 'Node 24.21.0', nodeVersion: 'v24.21.0', gitRev: null }],
      comparison: { ...set, summary: formatSummary(set), warnings: [], pairs: 5, elapsedMs: 9_000, stopReason: 'target', primary: 'startupMs' }, warnings: [], hasFlamegraph: false,
    });
    assert.equal(r.text, '$(git-compare) Node 24.21.0 +20% startup vs Node 22.23.3');
    assert.equal(r.tone, 'slower');
    assert.equal(r.command, undefined);
    assert.match(r.tooltip, /^\*\*Hotpath: compare startup\*\* — B starts slower than A/);
    assert.doesNotMatch(r.tooltip, /compareAgain/);
    assert.match(r.tooltip, /\| startup \| 100\.0 ms \| 120 ms \| \+20% \*\*✓\*\* \|/);
  });

  it('status bar while comparing: the interval so far', () => {
    const r = renderStatus({ kind: 'running', title: 'Compare', stage: 'measuring', requestsPerSecond: 2310, interval: { label: 'req/s', ratio: 1.123, ciLow: 1.04, ciHigh: 1.21, halfWidthPct: 8.1, targetPct: 5, pairs: 4, level: 0.9833 } });
    assert.equal(r.text, '$(loading~spin) Measuring… 2,310 req/s · req/s +12% ±8.1%');
    assert.match(r.tooltip, /So far \(4 pairs\): req\/s \+12%, 98\.33% CI \+4\.0% … \+21\.0% \(target ±5%\)/);
  });

  it('pickers: HEAD first with what it means, commit text made label-safe; installed runtimes then the registry', () => {
    const rows = revisionRows([
      { sha: 'aaaaaaa1111', subject: 'Fix $(bug) cache', author: 'Ann', date: new Date(Date.now() - 3 * 86400_000).toISOString() },
      { sha: 'bbbbbbb2222', subject: 'Older', author: 'Bob', date: new Date().toISOString() },
    ], true);
    assert.equal(rows[0].value, 'aaaaaaa1111');
    assert.ok(!rows[0].label.includes('$(bug)'));
    assert.match(rows[0].description!, /^HEAD · Ann · 3 days ago$/);
    assert.match(rows[0].detail!, /uncommitted changes \(B\) against the last commit \(A\)/);
    assert.equal(rows[rows.length - 1].value, undefined, 'the last row asks for a revision');
    const rt = runtimeRows([{ version: '24.21.0', path: '/c/24/bin/node', source: 'hotpath-cache' }, { version: '22.23.3', path: '/n/22/bin/node', source: 'nvm' }], '/c/24/bin/node');
    assert.deepEqual(rt.map((r) => r.label), ['Node 22.23.3', '$(cloud-download) Another version, installed from the npm registry…']);
  });

  it('launch.json mode "compare": sides from the compare object, settings as defaults; what is wrong is said', () => {
    const defaults = { load: { connections: 10 }, runs: 3, samplingIntervalMicros: 1000 };
    const r = requestFromLaunchConfig({ mode: 'compare', program: 'server.js', compare: { base: 'HEAD~1', node: ['22', '24'], pairs: 4 } }, '/ws', defaults);
    assert.equal(r.kind, 'compare');
    if (r.kind !== 'compare') return;
    assert.deepEqual(r.sides, [{ base: 'HEAD~1', node: '22', env: {}, nodeArgs: [] }, { node: '24', env: {}, nodeArgs: [] }]);
    assert.deepEqual(r.compare, { durationSeconds: 3, warmupSeconds: 1, targetCiPercent: 5, budgetSeconds: 120, pairs: 4, script: false });
    const env = requestFromLaunchConfig({ mode: 'compare', command: ['npm', 'start'], compare: { envA: { NODE_ENV: 'development' }, envB: { NODE_ENV: 'production' }, script: true } }, '/ws', defaults);
    assert.equal(env.kind === 'compare' && env.compare.script, true);
    assert.throws(() => requestFromLaunchConfig({ mode: 'compare', program: 'a.js' }, '/ws', defaults), /needs a "compare" object/);
    assert.throws(() => requestFromLaunchConfig({ mode: 'compare', program: 'a.js', compare: { node: '24' } }, '/ws', defaults), /the two sides of "compare" are the same/);
    assert.throws(() => requestFromLaunchConfig({ mode: 'compare', program: 'a.js', compare: { base: 'x', pairs: 1 } }, '/ws', defaults), /at least 2/);
  });
});
