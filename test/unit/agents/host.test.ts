/**
 * The tool host with a fake environment (runs that wait for cancellation, or end when told): jobs
 * answer with a runId when they outlive the wait, a cancelled call stops its run, one run at a time,
 * commands only inside the roots and never where runs are blocked, arguments refused with the valid
 * ones named, and every answer within the budget.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource, neverCancelled } from '../../../src/core/common/cancellation';
import { cancelledError } from '../../../src/core/common/errors';
import { ToolHost, type AgentEnvironment } from '../../../src/core/agents/host';
import { answerOf } from '../../../src/core/agents/answer';
import { validateArguments } from '../../../src/core/agents/schema';
import { toolNamed } from '../../../src/core/agents/tools';
import { reportProfile } from '../../../src/core/workflow/report';
import type { AgentRun } from '../../../src/core/agents/runs';
import { buildReport } from '../../../src/core/report';
import { code } from '../../../src/core/report/model';

const PROFILE = path.resolve(__dirname, '../../fixtures/profiles/deps.cpuprofile');

function fakeEnvironment(root: string, blocked?: string) {
  const started: AgentRun[] = [];
  let finish: (() => void) | undefined;
  let cancelled = 0;
  const env: AgentEnvironment = {
    roots: async () => [root],
    runBlocked: () => blocked,
    run: (run, deps) => new Promise((resolve, reject) => {
      started.push(run);
      deps.onProgress?.({ stage: 'measuring', message: 'Measuring: 100 req/s', fraction: 0.5 });
      deps.token!.onCancellationRequested(() => { cancelled++; reject(cancelledError()); });
      finish = () => void reportProfile(PROFILE).then(resolve, reject);
    }),
  };
  return { env, started, finish: () => finish?.(), cancelled: () => cancelled };
}

describe('agents: the tool host', () => {
  let root: string;
  before(() => { root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-host-'))); fs.mkdirSync(path.join(root, 'app')); });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const ctx = { token: neverCancelled };

  it('a run longer than the wait answers with its runId; status waits; the result then comes', async () => {
    const fake = fakeEnvironment(root);
    const host = new ToolHost(fake.env);
    const first = await host.call('hotpath_profile', { command: ['node', 'server.js'], cwd: 'app', wait: 0 }, ctx);
    assert.equal(first.structured.status, 'running', first.markdown);
    assert.equal(first.structured.runId, 'run-1');
    assert.match(first.markdown, /Measuring: 100 req\/s/);
    assert.equal(fake.started[0].cwd, path.join(root, 'app'));
    const progress: string[] = [];
    setTimeout(() => fake.finish(), 50);
    const done = await host.call('hotpath_status', { runId: 'run-1', wait: 20 }, { token: neverCancelled, onProgress: (p) => progress.push(p.message) });
    assert.equal(done.structured.status, 'done', done.markdown);
    assert.match(done.markdown.split('\n')[0], /^`useDep` in `\/hotpath-fixtures\/deps\.js:20`: 27\.0% own \(`crunch`\)/);
    assert.ok(progress.length >= 1 && progress[0].startsWith('run-1 measuring'), JSON.stringify(progress));
    assert.ok(done.markdown.length <= 8000 && JSON.stringify(done.structured).length <= 8000);
  });

  it('a cancelled call stops its run; a second run while one runs is refused', async () => {
    const fake = fakeEnvironment(root);
    const host = new ToolHost(fake.env);
    const started = await host.call('hotpath_profile', { command: ['node', 'server.js'], wait: 0 }, ctx);
    const second = await host.call('hotpath_baseline', { command: ['node', 'server.js'] }, ctx);
    assert.equal(second.isError, true);
    assert.match(second.markdown, /already running hotpath_profile run-1/);
    const source = new CancellationTokenSource();
    setTimeout(() => source.cancel(), 20);
    const answer = await host.call('hotpath_status', { runId: started.structured.runId as string, wait: 30 }, { token: source.token });
    assert.equal(fake.cancelled(), 1, 'the run saw the cancellation');
    assert.equal(answer.structured.status, 'cancelled');
    assert.equal(answer.isError, true);
  });

  it('stopAll stops every running job (the client went away)', async () => {
    const fake = fakeEnvironment(root);
    const host = new ToolHost(fake.env);
    await host.call('hotpath_profile', { command: ['node', 'server.js'], wait: 0 }, ctx);
    await host.stopAll();
    assert.equal(fake.cancelled(), 1);
    assert.equal(host.jobs.get('run-1')?.status, 'cancelled');
  });

  it('commands run only inside the roots, and never where runs are blocked', async () => {
    const host = new ToolHost(fakeEnvironment(root).env);
    const outside = await host.call('hotpath_profile', { command: ['node', 'x.js'], cwd: '/' }, ctx);
    assert.equal(outside.isError, true);
    assert.match(outside.markdown, /outside the workspace/);
    const escape = await host.call('hotpath_profile', { command: ['node', 'x.js'], cwd: '../' }, ctx);
    assert.match(escape.markdown, /outside the workspace/);
    const untrusted = new ToolHost(fakeEnvironment(root, 'This workspace is not trusted').env);
    const refused = await untrusted.call('hotpath_profile', { command: ['node', 'x.js'] }, ctx);
    assert.match(refused.markdown, /not trusted/);
    // Reading a profile needs no trust.
    const read = await untrusted.call('hotpath_hot_lines', { profile: PROFILE, limit: 3 }, ctx);
    assert.ok(!read.isError, read.markdown);
  });

  it('hotpath_bench: `pairs` reaches a task comparison; without `compare` it is refused, saying what it needs', async () => {
    fs.writeFileSync(path.join(root, 'app', 'x.bench.js'), '');
    const fake = fakeEnvironment(root);
    const host = new ToolHost(fake.env);
    await host.call('hotpath_bench', { file: 'x.bench.js', cwd: 'app', compare: ['slow', 'fast'], pairs: 5, wait: 0 }, ctx);
    assert.deepEqual(fake.started.map((r) => r.bench), [{ file: path.join(root, 'app', 'x.bench.js'), compareTasks: ['slow', 'fast'], pairs: 5 }]);
    await host.stopAll();
    const alone = await new ToolHost(fakeEnvironment(root).env).call('hotpath_bench', { file: 'x.bench.js', cwd: 'app', pairs: 5 }, ctx);
    assert.equal(alone.isError, true);
    assert.match(alone.markdown, /`pairs` counts the pairs of a task comparison: give `compare: \[A, B\]`/);
    const tooMany = validateArguments(toolNamed('hotpath_bench')!.inputSchema, { file: 'x.bench.js', compare: ['a', 'b'], pairs: 21 });
    assert.ok(!tooMany.ok && /`pairs` must be an integer from 2 to 20/.test(tooMany.message), JSON.stringify(tooMany));
  });

  it('arguments: unknown ones and wrong types are refused, naming what is valid', () => {
    const profile = toolNamed('hotpath_profile')!.inputSchema;
    const unknown = validateArguments(profile, { command: ['node'], duraton: 5 });
    assert.deepEqual(unknown, { ok: false, message: 'Unknown argument `duraton`. Valid arguments: command, cwd, env, path, method, requests, duration, warmup, connections, port, wait, script, memory, timeout.' });
    const nested = validateArguments(profile, { command: ['node'], requests: [{ path: '/a', weight: 'lots' }] });
    assert.ok(!nested.ok && nested.message === '`requests[0].weight` must be an integer from 1 to 1000, not the string "lots".', JSON.stringify(nested));
    const missing = validateArguments(profile, {});
    assert.ok(!missing.ok && missing.message.startsWith('Missing `command`: The command that starts the app, as argv'), JSON.stringify(missing));
    const env = validateArguments(profile, { command: ['node'], env: { PORT: 3000 } });
    assert.ok(!env.ok && env.message.includes('`env.PORT` must be a string'), JSON.stringify(env));
    assert.ok(validateArguments(profile, { command: ['node', 'server.js'], env: { PORT: '0' }, requests: [{ path: '/a' }] }).ok);
  });

  it('answers fit the budget: the biggest tables are cut, the cut says how many rows and how to see them', async () => {
    const report = buildReport(await reportProfile(PROFILE, { limit: 200 }), { cwd: path.dirname(PROFILE) });
    const a = answerOf(report, { cwd: path.dirname(PROFILE), budget: 2500, moreHint: () => code('offset: 99') });
    assert.ok(a.markdown.length <= 2500, `${a.markdown.length}`);
    assert.ok(JSON.stringify(a.structured).length <= 2500, `${JSON.stringify(a.structured).length}`);
    assert.match(a.markdown, /\+\d+ rows: `offset: 99`/);
    assert.ok(a.markdown.startsWith('`'), 'the headline stays first');
  });
});
