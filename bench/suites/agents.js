'use strict';
// What an agent waits for when it asks about a big profile: `hotpath_hot_lines` and `hotpath_explain`
// over the built `hotpath mcp` (stdio, the MCP SDK's own client), on the ~100 MB benchmark profile with
// its scripts on disk (as the attribution suite makes it, so attribution reads real sources).
// - cold: the first call of a fresh server (the profile is read, modelled and attributed);
// - warm: the next call of the same server (another page of lines, another function: from memory).
// Reference, measured in the same run and interleaved with the cold calls: `hotpath report --json` of
// the same profile in a fresh process (the same reading, modelling and attribution, for the terminal).
// All runs share one warm source-parse cache (filled first), as after the run that recorded a profile.
// Target: cold within 1.3× of the report; warm under 1 s.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('../lib/build');
const { cachedProfileWithSources } = require('../lib/generate');

const RUNS = Number(process.env.HOTPATH_BENCH_RUNS || 5);
const SIZE_MB = 100;
const CLI = path.join(ROOT, 'dist', 'cli.js');
const TARGET = { coldRatio: 1.3, warmMs: 1000 };

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (v, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

/** `hotpath report --json` in a fresh process: wall time. */
function report(profile, cacheRoot) {
  const t = performance.now();
  const run = spawnSync(process.execPath, [CLI, 'report', '--json', profile], { env: { ...process.env, HOTPATH_CACHE: cacheRoot, HOTPATH_SOURCE_CACHE: '' }, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`hotpath report failed (${run.status}): ${run.stderr}`);
  return performance.now() - t;
}

/** A fresh `hotpath mcp` and the SDK's client on it. */
async function server(dir, cacheRoot) {
  const { Client } = require('@modelcontextprotocol/client');
  const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'hotpath-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--cwd', dir], env: { ...process.env, HOTPATH_CACHE: cacheRoot, HOTPATH_SOURCE_CACHE: '' } }));
  return client;
}

/** One tool call, timed; fails the suite on an error answer. */
async function timed(client, name, args) {
  const t = performance.now();
  // A cold call on a 100 MB profile may take longer than the SDK's default 60 s on a busy machine.
  const r = await client.callTool({ name, arguments: args }, { timeout: 600_000 });
  const ms = performance.now() - t;
  if (r.isError) throw new Error(`${name}: ${r.content[0]?.text}`);
  return { ms, r, chars: r.content[0].text.length, structuredChars: JSON.stringify(r.structuredContent).length };
}

async function run({ log }) {
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm run bench does).');
  const { file, dir } = cachedProfileWithSources(SIZE_MB, log);
  const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-agents-cache-'));
  const rows = [];
  try {
    log(`warming the source-parse cache: report ${report(file, cacheRoot).toFixed(0)} ms`);
    for (let r = 0; r < RUNS; r++) {
      // Interleaved: the report goes first in even pairs, last in odd ones.
      const before = r % 2 === 0 ? report(file, cacheRoot) : undefined;
      const a = await server(dir, cacheRoot);
      let hot; let hotWarm; let explainWarm;
      try {
        hot = await timed(a, 'hotpath_hot_lines', { profile: file, limit: 15 });
        hotWarm = await timed(a, 'hotpath_hot_lines', { profile: file, limit: 15, offset: 15 });
        const rowsOf = hot.r.structuredContent.sections.lines[0].rows;
        const second = rowsOf.find((x, i) => i > 0 && x.location.split(':')[0] !== rowsOf[0].location.split(':')[0]) ?? rowsOf[1];
        const [f2, l2] = second.location.split(/:(?=\d+$)/);
        explainWarm = await timed(a, 'hotpath_explain', { profile: file, file: f2, line: Number(l2) });
      } finally { await a.close(); }
      const b = await server(dir, cacheRoot);
      let explain;
      try {
        const [f1, l1] = hot.r.structuredContent.sections.lines[0].rows[0].location.split(/:(?=\d+$)/);
        explain = await timed(b, 'hotpath_explain', { profile: file, file: f1, line: Number(l1) });
      } finally { await b.close(); }
      const after = before === undefined ? report(file, cacheRoot) : before;
      rows.push({ reportMs: after, hotLinesColdMs: hot.ms, hotLinesWarmMs: hotWarm.ms, explainColdMs: explain.ms, explainWarmMs: explainWarm.ms, maxChars: Math.max(hot.chars, hot.structuredChars, explain.chars, explain.structuredChars, hotWarm.chars, explainWarm.chars) });
      log(`pair ${r + 1}: report ${after.toFixed(0)} ms · hot_lines cold ${hot.ms.toFixed(0)} ms, warm ${hotWarm.ms.toFixed(0)} ms · explain cold ${explain.ms.toFixed(0)} ms, warm ${explainWarm.ms.toFixed(0)} ms`);
    }
    const med = (k) => round(median(rows.map((x) => x[k])), 0);
    const ratio = (k) => round(median(rows.map((x) => x[k] / x.reportMs)));
    const result = {
      target: { coldWithinReport: TARGET.coldRatio, warmUnderMs: TARGET.warmMs },
      profileMB: round(fs.statSync(file).size / 1048576, 1),
      pairs: RUNS,
      reportMs: med('reportMs'),
      hotLines: { coldMs: med('hotLinesColdMs'), coldRatioToReport: ratio('hotLinesColdMs'), warmMs: med('hotLinesWarmMs') },
      explain: { coldMs: med('explainColdMs'), coldRatioToReport: ratio('explainColdMs'), warmMs: med('explainWarmMs') },
      largestAnswerChars: Math.max(...rows.map((x) => x.maxChars)),
      runs: rows.map((x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k, round(v, 0)]))),
    };
    result.meetsTarget = result.hotLines.coldRatioToReport <= TARGET.coldRatio && result.explain.coldRatioToReport <= TARGET.coldRatio && result.hotLines.warmMs <= TARGET.warmMs && result.explain.warmMs <= TARGET.warmMs;
    return result;
  } finally {
    fs.rmSync(cacheRoot, { recursive: true, force: true });
  }
}

module.exports = { run };
