import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { attachToProcess } from '../../src/core/target/attach';
import { ProfilingRun } from '../../src/core/inspector/profilingRun';
import { isHotpathError, ErrorCode } from '../../src/core/common/errors';
import * as fs from 'node:fs';
import { APPS, runCli } from '../helpers/cli';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)); });
  });
}

function hit(port: number, until: number): Promise<void> {
  return new Promise((resolve) => {
    const loop = () => {
      if (Date.now() > until) return resolve();
      http.get({ host: '127.0.0.1', port, path: '/' }, (res) => { res.resume(); res.on('end', loop); }).on('error', () => setTimeout(loop, 50));
    };
    loop();
  });
}

describe('attach to a running process', function () {
  this.timeout(60_000);
  let app: ChildProcess;
  let inspectPort: number;
  let httpPort: number;

  before(async () => {
    inspectPort = await freePort();
    httpPort = await freePort();
    // Started without an open inspector: only --inspect-port, as a production process would be.
    app = spawn(process.execPath, [`--inspect-port=127.0.0.1:${inspectPort}`, path.join(APPS, 'hot-server.js')], { env: { ...process.env, PORT: String(httpPort) }, stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 500));
  });
  after(() => { app.kill('SIGKILL'); });

  it('by PID (SIGUSR1): profiles the process and finds the hot function', async () => {
    const attached = await attachToProcess({ pid: app.pid!, inspectorPort: inspectPort });
    try {
      assert.equal(attached.pid, app.pid);
      assert.equal(attached.nodeVersion, process.version);
      const run = await ProfilingRun.start(attached.client, attached.pid, { samplingIntervalMicros: 500 });
      await hit(httpPort, Date.now() + 1500);
      const [main] = await run.stop();
      run.dispose();
      const names = (main.profile.nodes as Array<{ callFrame: { functionName: string } }>).map((n) => n.callFrame.functionName);
      assert.ok(names.includes('fibonacciHot'));
    } finally {
      await attached.client.close();
    }
  });

  it('by inspector port, once the inspector is open', async () => {
    const attached = await attachToProcess({ inspectorPort: inspectPort });
    assert.equal(attached.pid, app.pid);
    await attached.client.close();
  });

  it('`hotpath profile --attach PID` profiles under load and leaves the process running', async () => {
    const run = await runCli(['profile', '--attach', String(app.pid), '--inspect-port', String(inspectPort), '--port', String(httpPort), '--duration', '2', '--warmup', '1', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    assert.equal(doc.target.pid, app.pid);
    assert.equal(doc.hotspots.find((h: any) => h.category === 'user').function, 'fibonacciHot');
    assert.ok(doc.warnings.some((w: any) => w.code === 'NODE_ENV_NOT_PRODUCTION'));
    assert.doesNotThrow(() => process.kill(app.pid!, 0), 'the attached app is still running');
    fs.rmSync(path.dirname(doc.profilePath), { recursive: true, force: true });
  });

  it('`--attach` without a load target says what to add', async () => {
    const run = await runCli(['profile', '--attach', String(app.pid)]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /add --port N .* or --url URL/);
  });

  it('refuses non-loopback inspector URLs and reports closed ports clearly', async () => {
    await assert.rejects(attachToProcess({ inspectorUrl: 'ws://10.1.2.3:9229/abc' }), /only to inspectors on loopback/);
    const closed = await freePort();
    await assert.rejects(attachToProcess({ inspectorPort: closed }), (err) => isHotpathError(err, ErrorCode.InspectorUnavailable) && /No Node.js inspector answers/.test(err.message));
  });
});
