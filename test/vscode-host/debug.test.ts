/**
 * The `hotpath` debug type, started the way F5 starts it (vscode.debug.startDebugging with a launch
 * configuration) on the real shop app of the opened workspace: a profile session runs its load to
 * the end, reports in the Debug Console and ends by itself; a script session profiles a program to
 * completion; stopDebugging mid-run ends the session and leaves no process of the target behind.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { marker, processesWith, waitForNoProcesses } from '../helpers/cli';

/* eslint-disable @typescript-eslint/no-explicit-any */
interface Run {
  session: vscode.DebugSession;
  /** Debug Console text (DAP output events), as far as it got. */
  output(): string;
  ended: Promise<void>;
  dispose(): void;
}

/** Starts a hotpath debug session and follows its DAP output and its end. */
async function startSession(config: vscode.DebugConfiguration): Promise<Run> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  const chunks: string[] = [];
  const disposables: vscode.Disposable[] = [];
  disposables.push(vscode.debug.registerDebugAdapterTrackerFactory('hotpath', {
    createDebugAdapterTracker(s) {
      if (s.name !== config.name) return undefined;
      return { onDidSendMessage(m: any) { if (m?.type === 'event' && m.event === 'output') chunks.push(String(m.body?.output ?? '')); } };
    },
  }));
  const started = new Promise<vscode.DebugSession>((resolve) => {
    disposables.push(vscode.debug.onDidStartDebugSession((s) => { if (s.name === config.name) resolve(s); }));
  });
  const ended = new Promise<void>((resolve) => {
    disposables.push(vscode.debug.onDidTerminateDebugSession((s) => { if (s.name === config.name) resolve(); }));
  });
  const ok = await vscode.debug.startDebugging(folder, config);
  assert.equal(ok, true, `startDebugging(${config.name}) succeeded`);
  const session = await started;
  return { session, output: () => chunks.join(''), ended, dispose: () => disposables.forEach((d) => d.dispose()) };
}

function within<T>(p: Promise<T>, ms: number, what: string, output: () => string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} not within ${ms} ms; Debug Console so far:\n${output()}`)), ms); }),
  ]);
}

describe('hotpath debug type', function () {
  this.timeout(180_000);

  it('mode "profile": runs the load to the end, reports in the Debug Console, the session ends, no orphan', async () => {
    const mark = marker();
    const run = await startSession({
      type: 'hotpath', request: 'launch', name: 'Hotpath host test: profile', mode: 'profile',
      command: ['node', 'server.js', mark], cwd: '${workspaceFolder}',
      // Production mode: no NODE_ENV prompt (there is no one to answer it in this suite).
      env: { PORT: '0', NODE_ENV: 'production' },
      load: { durationSeconds: 2, warmupSeconds: 1, connections: 4 },
    });
    const t = Date.now();
    try {
      await within(run.ended, 120_000, 'the profile session ended', run.output);
      const text = run.output();
      console.log(`      profile session: ${Date.now() - t} ms; Debug Console:\n${text.replace(/^/gm, '        | ')}`);
      (globalThis as any).__hotpathHostMetrics.debugProfileSessionMs = Date.now() - t;
      assert.match(text, /[\d,]+ req\/s/, 'the Debug Console reports the request rate');
      assert.match(text, /\d+(\.\d+)?%/, 'the Debug Console reports hotspot shares');
      assert.deepEqual(await waitForNoProcesses(mark, 5000), [], 'the target is stopped');
    } finally {
      run.dispose();
    }
  });

  it('mode "script" with "program": profiles a script to completion', async () => {
    const mark = marker();
    const run = await startSession({
      type: 'hotpath', request: 'launch', name: 'Hotpath host test: script', mode: 'script',
      program: 'cpu-script.js', args: [mark], cwd: '${workspaceFolder}', env: { NODE_ENV: 'production' },
    });
    try {
      await within(run.ended, 120_000, 'the script session ended', run.output);
      const text = run.output();
      console.log(`      script session Debug Console:\n${text.replace(/^/gm, '        | ')}`);
      assert.match(text, /crunch/, 'the hot function of the script is reported');
      assert.deepEqual(await waitForNoProcesses(mark, 5000), []);
    } finally {
      run.dispose();
    }
  });

  it('mode "compare": two sides interleaved, the verdict in the Debug Console, no orphan', async () => {
    const mark = marker();
    const run = await startSession({
      type: 'hotpath', request: 'launch', name: 'Hotpath host test: compare', mode: 'compare',
      command: ['node', 'server.js', mark], cwd: '${workspaceFolder}', env: { PORT: '0' },
      compare: { envA: { NODE_ENV: 'development' }, envB: { NODE_ENV: 'production' }, pairs: 2, durationSeconds: 1, warmupSeconds: 1 },
    });
    try {
      await within(run.ended, 150_000, 'the compare session ended', run.output);
      const text = run.output();
      console.log(`      compare session Debug Console:\n${text.replace(/^/gm, '        | ')}`);
      assert.match(text, /Compare B \(NODE_ENV=production\) with A \(NODE_ENV=development\), 2 interleaved pairs: req\/s ([+−-]|0\.0%)/);
      assert.match(text, /Profiles: A .*-a\.cpuprofile, B .*-b\.cpuprofile/);
      assert.deepEqual(await waitForNoProcesses(mark, 5000), [], 'no process of either side is left');
    } finally {
      run.dispose();
    }
  });

  it('stopDebugging mid-run ends the session and stops the target process group', async () => {
    const mark = marker();
    const run = await startSession({
      type: 'hotpath', request: 'launch', name: 'Hotpath host test: stop', mode: 'profile',
      command: ['node', 'server.js', mark], cwd: '${workspaceFolder}', env: { PORT: '0', NODE_ENV: 'production' },
      load: { durationSeconds: 60, warmupSeconds: 1, connections: 2 },
    });
    try {
      const deadline = Date.now() + 60_000;
      while (!processesWith(mark).length) {
        assert.ok(Date.now() < deadline, `the target started; Debug Console:\n${run.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 2000)); // under load now
      const t = Date.now();
      await vscode.debug.stopDebugging(run.session);
      await within(run.ended, 15_000, 'the stopped session ended', run.output);
      assert.deepEqual(await waitForNoProcesses(mark, 5000), [], 'no process of the target is left');
      console.log(`      stop: session ended and target gone ${Date.now() - t} ms after stopDebugging`);
    } finally {
      run.dispose();
      for (const pid of processesWith(mark)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    }
  });
});
