import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ErrorCode, HotpathError } from '../../../src/core/common/errors';
import { resolveLoadOptions } from '../../../src/core/load/options';
import {
  BaselineStore, baselineNameFromCommand, sanitizeBaselineName, type Baseline, type BaselineFs,
} from '../../../src/core/stats/baselineStore';

function baseline(name: string, createdAt: string, rps = [1000, 1010, 990]): Baseline {
  return {
    version: 1,
    name,
    createdAt,
    command: ['node', 'app.js'],
    cwd: '/work/app',
    load: resolveLoadOptions({ durationSeconds: 5 }, { port: 3000 }),
    runs: rps.map((r) => ({ requestsPerSecond: r, p99Ms: 12.5, p50Ms: 3.1, errors: 0, perSecond: [r - 5, r + 5] })),
    environment: {
      nodeVersion: 'v22.3.0', nodeEnv: null, gitCommit: null, gitDirty: null, cpuCount: 2, cpuModel: 'cpu',
      hostname: 'h', platform: 'linux', loadAverage: [0, 0, 0], capturedAt: createdAt,
    },
  };
}

async function hotpathError(promise: Promise<unknown>): Promise<HotpathError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof HotpathError, `expected HotpathError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

describe('BaselineStore', () => {
  let dir: string;
  let store: BaselineStore;

  beforeEach(() => {
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-store-')), '.hotpath', 'baselines');
    store = new BaselineStore(dir);
  });
  afterEach(() => fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true }));

  it('round-trips a baseline, full results included, creating the folder', async () => {
    const b = baseline('api', '2024-05-01T10:00:00.000Z');
    const file = await store.save(b);
    assert.equal(file, path.join(dir, 'api.json'));
    assert.deepEqual(await store.load('api'), b);
  });

  it('stores under the sanitised name, and finds it by the original spelling', async () => {
    await store.save(baseline('Main API', '2024-05-01T10:00:00.000Z'));
    assert.deepEqual(fs.readdirSync(dir), ['main-api.json']);
    assert.equal((await store.load('Main API')).name, 'main-api');
    assert.equal((await store.load('main-api')).name, 'main-api');
  });

  it('says how to create a missing baseline', async () => {
    const err = await hotpathError(store.load('nope'));
    assert.equal(err.code, ErrorCode.BaselineNotFound);
    assert.equal(err.message, `No baseline named 'nope' in ${dir}. Run \`hotpath baseline --name nope -- <command>\` first.`);
  });

  it('reports corrupted JSON clearly instead of a bare SyntaxError', async () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'broken.json'), '{"version": 1, "name": "bro');
    const err = await hotpathError(store.load('broken'));
    assert.equal(err.code, ErrorCode.BaselineNotFound);
    assert.equal(err.details?.reason, 'invalid');
    assert.match(err.message, /^Baseline 'broken' \(.*broken\.json\) is not valid JSON \(.*\); it may have been edited or truncated\. Run `hotpath baseline --name broken -- <command>` to create it again\.$/);
  });

  it('rejects valid JSON that is not a usable baseline, and a newer format', async () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'empty.json'), JSON.stringify({ ...baseline('empty', '2024-01-01T00:00:00Z'), runs: [] }));
    fs.writeFileSync(path.join(dir, 'future.json'), JSON.stringify({ ...baseline('future', '2024-01-01T00:00:00Z'), version: 2 }));
    assert.match((await hotpathError(store.load('empty'))).message, /cannot be used: it has no runs\./);
    assert.match((await hotpathError(store.load('future'))).message, /written by a newer Hotpath \(format 2\)/);
  });

  it('lists baselines newest first and shows unusable files last with the reason', async () => {
    assert.deepEqual(await store.list(), []); // no folder yet
    await store.save(baseline('old', '2024-01-01T00:00:00.000Z', [100, 200]));
    await store.save(baseline('new', '2024-06-01T00:00:00.000Z'));
    fs.writeFileSync(path.join(dir, 'Junk File.json'), 'not json');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
    const list = await store.list();
    assert.deepEqual(list.map((s) => [s.name, s.runCount, s.requestsPerSecond]), [['new', 3, 1000], ['old', 2, 150], ['Junk File', 0, null]]);
    assert.match(list[2].problem!, /is not valid JSON/);
    assert.equal(list[0].file, path.join(dir, 'new.json'));
    assert.deepEqual(list.map((s) => s.nodeVersion), ['v22.3.0', 'v22.3.0', null]);
  });

  it('deletes, and says so when there is nothing to delete', async () => {
    await store.save(baseline('gone', '2024-01-01T00:00:00.000Z'));
    await store.delete('gone');
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.equal((await hotpathError(store.delete('gone'))).code, ErrorCode.BaselineNotFound);
  });

  it('writes atomically: a temp file in the same folder, renamed over the target', async () => {
    const calls: string[] = [];
    const spy: BaselineFs = {
      ...fsp,
      writeFile: (async (file: string, data: string, opts: BufferEncoding) => {
        calls.push(`write ${path.basename(file)}`);
        return fsp.writeFile(file, data, opts);
      }) as BaselineFs['writeFile'],
      rename: async (from, to) => {
        calls.push(`rename ${path.basename(String(from))} → ${path.basename(String(to))}`);
        return fsp.rename(from, to);
      },
    };
    await new BaselineStore(dir, spy).save(baseline('api', '2024-05-01T10:00:00.000Z'));
    assert.equal(calls.length, 2);
    assert.match(calls[0], /^write api\.json\.\d+\.[0-9a-f]{8}\.tmp$/);
    assert.equal(calls[1], `rename ${calls[0].slice('write '.length)} → api.json`);
  });

  it('keeps the previous baseline intact when a save dies half-way, and leaves no temp file', async () => {
    const original = baseline('api', '2024-05-01T10:00:00.000Z');
    await store.save(original);
    const crashing: BaselineFs = {
      ...fsp,
      writeFile: (async (file: string, data: string) => {
        await fsp.writeFile(file, data.slice(0, 20)); // a torn write…
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }); // …then the disk fills
      }) as BaselineFs['writeFile'],
    };
    await assert.rejects(new BaselineStore(dir, crashing).save(baseline('api', '2024-06-01T00:00:00.000Z', [1])), /Could not save baseline 'api'.*ENOSPC/);
    assert.deepEqual(await store.load('api'), original);
    assert.deepEqual(fs.readdirSync(dir), ['api.json']);
  });
});

describe('baseline names', () => {
  it('derives short, stable names from commands', () => {
    assert.equal(baselineNameFromCommand(['node', 'app.js']), 'node-app-js');
    assert.equal(baselineNameFromCommand(['npm', 'start']), 'npm-start');
    assert.equal(baselineNameFromCommand(['/usr/local/bin/node', '/home/me/api/server.js']), 'node-server-js');
    assert.equal(baselineNameFromCommand(['C:\\Program Files\\nodejs\\node.exe', '.\\src\\index.js'].map((s) => s.replace(/\\/g, '/'))), 'node-src-index-js');
    assert.equal(baselineNameFromCommand([]), 'baseline');
  });

  it('truncates long commands with a hash so similar long commands stay apart', () => {
    const a = baselineNameFromCommand(['node', '--max-old-space-size=4096', 'dist/server/main.js', '--port', '3000']);
    const b = baselineNameFromCommand(['node', '--max-old-space-size=4096', 'dist/server/main.js', '--port', '3001']);
    assert.ok(a.length <= 40, a);
    assert.match(a, /^node-max-old-space-size-4096-dist-[0-9a-f]{6}$/);
    assert.notEqual(a, b);
    assert.equal(baselineNameFromCommand(['node', '--max-old-space-size=4096', 'dist/server/main.js', '--port', '3000']), a);
  });

  it('sanitises user names into safe file names', () => {
    assert.equal(sanitizeBaselineName('Main API'), 'main-api');
    assert.equal(sanitizeBaselineName('../../etc/passwd'), 'etc-passwd');
    assert.equal(sanitizeBaselineName('Café v1.2'), 'cafe-v1.2');
    assert.equal(sanitizeBaselineName('CON'), 'con_');
    assert.equal(sanitizeBaselineName('x'.repeat(100)).length, 64);
    assert.throws(() => sanitizeBaselineName('///'), (e: unknown) => e instanceof HotpathError && e.code === ErrorCode.InvalidOption);
  });
});
