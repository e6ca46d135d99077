/** Finds the Node.js versions already on this machine: version managers' folders, the PATH, Hotpath's cache. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cacheRoot, cachedNodeBinary, completeStamp, nodePackageName } from './cache';
import { askVersion } from './probe';
import type { NodeRuntime, RuntimeSource } from './types';
import { compareVersions, parseVersion } from './version';

export interface DiscoverDeps {
  env: NodeJS.ProcessEnv;
  home: string;
  platform: string;
  arch: string;
  /** Names in a directory ([] when it does not exist). */
  readdir(dir: string): string[];
  isFile(file: string): boolean;
  /** `<binary> --version`, or null when it cannot run. */
  versionOf(binary: string): Promise<string | null>;
  /** This process's own Node, when it is one (the CLI). */
  current?: { version: string; path: string };
}

/** A binary that does not answer within 5 s is stopped (probe.ts) and left out. */
function versionOf(binary: string): Promise<string | null> {
  return askVersion(binary, 5000).catch(() => null);
}

export const defaultDiscoverDeps = (): DiscoverDeps => ({
  env: process.env,
  home: os.homedir(),
  platform: process.platform,
  arch: process.arch,
  readdir: (dir) => { try { return fs.readdirSync(dir); } catch { return []; } },
  isFile: (file) => { try { return fs.statSync(file).isFile(); } catch { return false; } },
  versionOf,
  current: process.release?.name === 'node' ? { version: process.version.replace(/^v/, ''), path: process.execPath } : undefined,
});

interface ManagerLayout {
  source: RuntimeSource;
  /** Folders holding one sub-folder per version. */
  roots: string[];
  /** The binary inside a version folder. */
  binary: (versionDir: string) => string;
}

/** Where each version manager keeps its Node versions (their documented defaults and environment overrides). */
function layouts(d: DiscoverDeps): ManagerLayout[] {
  const { env, home } = d;
  const bin = (dir: string) => path.join(dir, 'bin', 'node');
  const xdgData = env.XDG_DATA_HOME || path.join(home, '.local', 'share');
  return [
    { source: 'nvm', roots: [path.join(env.NVM_DIR || path.join(home, '.nvm'), 'versions', 'node')], binary: bin },
    {
      source: 'fnm',
      roots: [...new Set([env.FNM_DIR, path.join(xdgData, 'fnm'), path.join(home, '.fnm'), path.join(home, 'Library', 'Application Support', 'fnm')].filter((x): x is string => !!x))].map((r) => path.join(r, 'node-versions')),
      binary: (dir) => bin(path.join(dir, 'installation')),
    },
    { source: 'volta', roots: [path.join(env.VOLTA_HOME || path.join(home, '.volta'), 'tools', 'image', 'node')], binary: bin },
    { source: 'asdf', roots: [path.join(env.ASDF_DATA_DIR || path.join(home, '.asdf'), 'installs', 'nodejs'), path.join(xdgData, 'mise', 'installs', 'node')], binary: bin },
    { source: 'n', roots: [path.join(env.N_PREFIX || '/usr/local', 'n', 'versions', 'node')], binary: bin },
    { source: 'nodenv', roots: [path.join(env.NODENV_ROOT || path.join(home, '.nodenv'), 'versions')], binary: bin },
  ];
}

function fromManagers(d: DiscoverDeps): NodeRuntime[] {
  const out: NodeRuntime[] = [];
  for (const layout of layouts(d)) {
    for (const root of layout.roots) {
      for (const name of d.readdir(root)) {
        const version = parseVersion(name);
        const binary = layout.binary(path.join(root, name));
        if (version && d.isFile(binary)) out.push({ version: version.join('.'), path: binary, source: layout.source });
      }
    }
  }
  return out;
}

function fromCache(d: DiscoverDeps): NodeRuntime[] {
  const pkg = nodePackageName(d.platform, d.arch);
  if (!pkg) return [];
  const root = cacheRoot(d.env, d.home);
  const out: NodeRuntime[] = [];
  for (const name of d.readdir(root)) {
    const m = /^node-(\d+\.\d+\.\d+)$/.exec(name);
    if (!m) continue;
    const binary = cachedNodeBinary(root, m[1], pkg);
    if (d.isFile(completeStamp(root, m[1])) && d.isFile(binary)) out.push({ version: m[1], path: binary, source: 'hotpath-cache' });
  }
  return out;
}

/** The first `node` on PATH, asked for its version. */
async function fromPath(d: DiscoverDeps): Promise<NodeRuntime[]> {
  const exe = d.platform === 'win32' ? 'node.exe' : 'node';
  for (const dir of (d.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const binary = path.join(dir, exe);
    if (!d.isFile(binary)) continue;
    const reported = await d.versionOf(binary);
    const version = reported ? parseVersion(reported) : undefined;
    return version ? [{ version: version.join('.'), path: binary, source: 'path' }] : [];
  }
  return [];
}

/**
 * Every Node binary found, newest version first; one entry per version (the PATH's first, then this
 * process's, then version managers', then Hotpath's cache), so a picker lists each version once.
 */
export async function discoverRuntimes(deps: DiscoverDeps = defaultDiscoverDeps()): Promise<NodeRuntime[]> {
  const current: NodeRuntime[] = deps.current ? [{ ...deps.current, source: 'current' }] : [];
  const all = [...(await fromPath(deps)), ...current, ...fromManagers(deps), ...fromCache(deps)];
  const seen = new Set<string>();
  const unique = all.filter((r) => (seen.has(r.version) ? false : (seen.add(r.version), true)));
  return unique.sort((a, b) => compareVersions(b.version, a.version));
}
