/**
 * (Named to run last: the profile it starts loads the shared host, and the suite's host-timer test
 * measures the host's own stalls.)
 *
 * Hotpath's tools for agents inside the real extension host: `vscode.lm.tools` lists every tool with
 * the registry's schema; `vscode.lm.invokeTool` runs the read-only ones on a fixture profile (no
 * confirmation: they only read); a profile an agent starts updates the editor as the command does
 * (the loaded profile, CodeLens on the hot function, the status bar, no process left), and so does a
 * benchmark task comparison (the editor's engine runs it: its results on the task lines); the MCP
 * definition provider yields `hotpath mcp`, which answers an MCP client with the same tools.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { marker, waitForNoProcesses } from '../helpers/cli';
import { TOOLS } from '../../src/core/agents/tools';
import type { HotpathApi } from '../../src/vscode/activate';

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = path.resolve(__dirname, '../../..');

async function api(): Promise<HotpathApi> {
  const ext = vscode.extensions.getExtension('hotpath.hotpath')!;
  return (ext.isActive ? ext.exports : await ext.activate()) as HotpathApi;
}

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

describe('hotpath language-model tools and MCP server', function () {
  this.timeout(240_000);
  const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  let profile: string;
  before(async () => {
    await api();
    profile = path.join(folder(), 'agent-fixture.cpuprofile');
    fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'profiles', 'deps.cpuprofile'), profile);
  });

  it('vscode.lm.tools lists every Hotpath tool, with the registry\'s input schema', () => {
    const tools = vscode.lm.tools.filter((t) => t.name.startsWith('hotpath_'));
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS.map((t) => t.name).sort());
    for (const def of TOOLS) assert.deepEqual(tools.find((t) => t.name === def.name)!.inputSchema, def.inputSchema, def.name);
  });

  it('vscode.lm.invokeTool runs the read-only tools on a fixture profile', async () => {
    const token = new vscode.CancellationTokenSource().token;
    const lines = textOf(await vscode.lm.invokeTool('hotpath_hot_lines', { input: { profile: 'agent-fixture.cpuprofile', limit: 5 }, toolInvocationToken: undefined }, token));
    assert.match(lines.split('\n')[0], /^`\/hotpath-fixtures\/node_modules\/fake-dep\/index\.js:6` in `crunch`: 26\.9% own/, lines);
    assert.match(lines, /\+\d+ rows: `offset: 5`/);
    const explain = textOf(await vscode.lm.invokeTool('hotpath_explain', { input: { profile: 'agent-fixture.cpuprofile', file: 'deps.js', function: 'useDep' }, toolInvocationToken: undefined }, token));
    assert.match(explain.split('\n')[0], /^`useDep` \(`\/hotpath-fixtures\/deps\.js:20`\): 27\.0% own .* most in `crunch`/, explain);
    const report = textOf(await vscode.lm.invokeTool('hotpath_report', { input: { profile: 'agent-fixture.cpuprofile', sections: ['packages'] }, toolInvocationToken: undefined }, token));
    assert.match(report, /`fake-dep` \| 26\.9%/, report);
    // A wrong argument is the tool's failure, with what is valid.
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('hotpath_hot_lines', { input: { profile: 'agent-fixture.cpuprofile', limit: 5, colour: 'red' }, toolInvocationToken: undefined }, token)), /colour|not allowed|additional/i);
  });

  it('a profile an agent starts updates the editor as the command does, and leaves no process', async () => {
    const { host, } = (await api()).agents;
    const { session } = await api();
    const mark = marker();
    const answer = await host().call('hotpath_profile', {
      // Development mode: the shop's template engine recompiles its template on every request (the demo's bottleneck).
      command: ['node', 'server.js', mark], env: { PORT: '0', NODE_ENV: 'development' }, path: '/', duration: 2, warmup: 1, connections: 4, wait: 50,
    }, { token: new vscode.CancellationTokenSource().token });
    let result = answer;
    for (let i = 0; i < 10 && result.structured.status === 'running'; i++) result = await host().call('hotpath_status', { runId: answer.structured.runId }, { token: new vscode.CancellationTokenSource().token });
    assert.equal(result.structured.status, 'done', result.markdown);
    // The editor has what the agent has: the run's profile is loaded, the status bar names the function the headline names.
    const loaded = session.profile;
    assert.ok(loaded && loaded.profilePath.includes(path.join(folder(), '.hotpath', 'profiles')), `loaded profile: ${loaded?.profilePath}`);
    assert.ok(result.markdown.includes(path.relative(folder(), loaded.profilePath)), 'the answer names the profile the editor shows');
    const status = session.status;
    assert.ok(status.kind === 'profiled', status.kind);
    assert.ok(result.markdown.startsWith(`\`${status.function}\` in \`${path.relative(folder(), status.file)}:${status.line}\``), `status bar: ${status.function} ${status.file}:${status.line}; answer: ${result.markdown.split('\n')[0]}`);
    // …and the CodeLens, hovers and line heat of that file read that function at that line.
    const { store } = await api();
    const live = store.forDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(status.file)));
    assert.ok(live?.functions.some((f) => f.line === status.line! - 1 && f.annotation.function === status.function), `annotations of ${status.file}: ${JSON.stringify(live?.functions.map((f) => [f.annotation.function, f.line + 1]))}`);
    assert.deepEqual(await waitForNoProcesses(mark, 10_000), [], 'the app stopped');
  });

  it('a benchmark task comparison an agent starts goes through the editor: its results on the task lines, one run at a time', async () => {
    // A tinybench file in the workspace (tinybench from the bench-suite fixture), two tasks that differ ~4×.
    // Five pairs, the fewest the adaptive rule runs: what is tested is the editor's part (the status bar,
    // the task lines), not the verdict (integration/bench asserts it). Adaptive, a busy shared lane took it
    // to 20 pairs, 44 s of this suite.
    const dir = path.join(folder(), 'agent-bench');
    const fixture = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'bench-suite');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(fixture, 'package.json'), path.join(dir, 'package.json'));
    fs.cpSync(path.join(fixture, 'lib'), path.join(dir, 'lib'), { recursive: true });
    if (!fs.existsSync(path.join(dir, 'node_modules'))) fs.symlinkSync(path.join(fixture, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const file = path.join(dir, 'checksum.bench.js');
    fs.writeFileSync(file, [
      "import { Bench } from 'tinybench';",
      "import { checksumFast, checksumSlow } from './lib/checksum.js';",
      'const data = Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 0);',
      'let sink = 0;',
      'const bench = new Bench({ time: 40, warmupTime: 20 });',
      "bench.add('slow', () => { sink ^= checksumSlow(data); }).add('fast', () => { sink ^= checksumFast(data); });",
      'await bench.run();',
      'if (sink === 0.5) console.log(sink);',
      '',
    ].join('\n'));
    const { host } = (await api()).agents;
    const { session } = await api();
    // The run is the editor's: the status bar says it runs (the palette's one-run-at-a-time lock holds it).
    const titles: string[] = [];
    const sub = session.onDidChangeStatus(() => { if (session.status.kind === 'running') titles.push(session.status.title); });
    let result;
    try {
      result = await host().call('hotpath_bench', { file: 'checksum.bench.js', cwd: 'agent-bench', compare: ['slow', 'fast'], pairs: 5, runs: 1, wait: 50 }, { token: new vscode.CancellationTokenSource().token });
      for (let i = 0; i < 10 && result.structured.status === 'running'; i++) result = await host().call('hotpath_status', { runId: result.structured.runId }, { token: new vscode.CancellationTokenSource().token });
    } finally {
      sub.dispose();
    }
    assert.equal(result.structured.status, 'done', result.markdown);
    assert.match(result.markdown, /"fast" against "slow"/, result.markdown);
    assert.match(result.markdown, /, 5 interleaved pairs\)/, `the agent's pairs reached the run: ${result.markdown}`);
    assert.ok(titles.includes('Compare Benchmark Tasks'), `status bar while it ran: ${JSON.stringify([...new Set(titles)])}`);
    // …and the editor shows its result on the task lines, as "Run Benchmark" does.
    const tasks = session.benchResultsOf(file);
    assert.deepEqual(tasks?.map((t) => t.name).sort(), ['fast', 'slow'], `bench results in the editor: ${JSON.stringify(tasks?.map((t) => t.name))}`);
    assert.equal(session.busy, undefined, 'the run ended');
  });

  it('the MCP definition provider yields `hotpath mcp`, which serves the same tools', async () => {
    const { mcp } = (await api()).agents;
    const definitions = await mcp.provideMcpServerDefinitions(new vscode.CancellationTokenSource().token) ?? [];
    assert.equal(definitions.length, 1);
    const d = definitions[0];
    assert.equal(d.label, 'Hotpath');
    assert.equal(path.basename(d.args[0]), 'cli.js');
    assert.deepEqual(d.args.slice(1), ['mcp', '--cwd', folder()]);
    const client = new Client({ name: 'host-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: d.command, args: d.args, env: { ...process.env, ...d.env } as Record<string, string>, cwd: d.cwd?.fsPath }));
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS.map((t) => t.name).sort());
      const r = await client.callTool({ name: 'hotpath_hot_lines', arguments: { profile: 'agent-fixture.cpuprofile', limit: 2 } }) as any;
      assert.ok(!r.isError, r.content?.[0]?.text);
    } finally {
      await client.close();
    }
  });
});
