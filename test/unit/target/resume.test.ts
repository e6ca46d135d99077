/**
 * Script mode: a process waits in the preload until Hotpath runs it. Node's inspector can take the run
 * (Runtime.runIfWaitingForDebugger) before the wait begins, when the process is descheduled between its
 * `process` report and `inspector.waitForDebugger()`; the wait then never ends (a benchmark comparison in
 * CI hung on its 33rd process). runPastWait (src/core/target/resume.ts) sends the run again until the
 * process reports that it left the wait.
 *
 * The race is made certain here, not left to chance: a stand-in preload reports the process, then keeps
 * the main thread in JavaScript for 1.5 s (where the inspector dispatches the run early) before it waits.
 * With one run sent (the old code) the process never exits and this test times out; it waits for the
 * exit (a state), not for a time.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CdpClient } from '../../../src/core/inspector/cdpClient';
import { launchTarget, type LaunchedTarget } from '../../../src/core/target/launcher';
import type { ProcessReport } from '../../../src/core/target/reports';
import { REPORT_FILE_ENV } from '../../../src/core/target/reports';
import { runPastWait } from '../../../src/core/target/resume';

/** A preload with the real one's contract, and a pause where the real one has none. */
const LATE_WAIT_PRELOAD = `
const fs = require('node:fs');
const inspector = require('node:inspector');
const file = process.env.${REPORT_FILE_ENV};
inspector.open(0, '127.0.0.1', false);
const report = (o) => fs.appendFileSync(file, JSON.stringify(o) + '\\n');
report({ type: 'process', pid: process.pid, ppid: process.ppid, argv: process.argv, execArgv: process.execArgv, nodeVersion: process.version, nodeEnv: null, maglev: false, inspectorUrl: inspector.url(), waiting: true });
let spins = 0;
for (const end = Date.now() + 1500; Date.now() < end;) spins++; // interrupts (and the early run) land here
inspector.waitForDebugger();
report({ type: 'resumed', pid: process.pid });
`;

function firstProcess(target: LaunchedTarget): Promise<ProcessReport> {
  return new Promise((resolve) => {
    const first = [...target.processes.values()][0];
    if (first) return resolve(first);
    const sub = target.onProcess((p) => { sub.dispose(); resolve(p); });
  });
}

/** Every target a test started: stopped after it, passed or failed (a process left waiting would outlive the run). */
const started: LaunchedTarget[] = [];

async function runScript(preloadPath?: string): Promise<{ target: LaunchedTarget; pid: number }> {
  const target = await launchTarget({ command: [process.execPath, '-e', 'console.log("the script ran")'], cwd: os.tmpdir(), mode: 'script', ...(preloadPath ? { preloadPath } : {}) });
  started.push(target);
  try {
    const proc = await firstProcess(target);
    assert.ok(proc.waiting && proc.inspectorUrl, JSON.stringify(proc));
    const client = await CdpClient.connect(proc.inspectorUrl);
    try {
      await runPastWait(client, target, proc.pid);
    } finally {
      await client.close();
    }
    const exit = await target.exited;
    assert.equal(exit.code, 0, target.output.forMessage());
    assert.match(target.output.forMessage(), /the script ran/);
    return { target, pid: proc.pid };
  } finally {
    await target.stop();
  }
}

describe('script mode: a waiting process is run past its wait', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-resume-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    for (const t of started.splice(0)) await t.stop();
  });

  it('even when the run reaches it before the wait begins (sent again until it reports that it runs)', async () => {
    const preload = path.join(dir, 'late-wait-preload.js');
    fs.writeFileSync(preload, LATE_WAIT_PRELOAD);
    await runScript(preload);
  });

  it('the real preload reports that its process left the wait', async () => {
    const { target, pid } = await runScript();
    assert.ok(target.reader.reports.some((r) => r.type === 'resumed' && r.pid === pid), JSON.stringify(target.reader.reports.map((r) => r.type)));
  });
});
