import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorMessage, ErrorCode, HotpathError, invalidOption } from '../common/errors';
import { defaultDiscoverDeps, discoverRuntimes, type DiscoverDeps } from './discover';
import { installNode, type InstallDeps } from './install';
import { askVersion, VersionProbeError } from './probe';
import { verifyIfCached } from './verify';
import type { NodeRuntime } from './types';
import { bestMatch, parseVersion, parseVersionSpec } from './version';

export interface ResolveRuntimeOptions {
  /** Install from the npm registry when no installed version matches (default true). */
  install?: boolean;
  installDeps?: InstallDeps;
  discoverDeps?: DiscoverDeps;
  /** Runtimes found earlier (a picker's list), to skip a second search. */
  found?: NodeRuntime[];
}

const looksLikePath = (text: string) => /[\\/]/.test(text) || text.startsWith('.') || text.startsWith('~');

/** A node binary the user named by path: it must exist, run, and say which version it is. */
async function fromPath(text: string): Promise<NodeRuntime> {
  const binary = path.resolve(text.startsWith('~') ? path.join(os.homedir(), text.slice(1)) : text);
  const file = fs.existsSync(binary) && fs.statSync(binary).isDirectory() ? path.join(binary, 'bin', 'node') : binary;
  if (!fs.existsSync(file)) throw invalidOption(`--node ${text}: no such file. Give a version (22, 24.1, 22.23.3) or the path of a node binary (e.g. ~/.nvm/versions/node/v22.23.3/bin/node).`);
  await verifyIfCached({ version: '', path: file, source: 'given' }); // before it runs at all
  let reported: string;
  try { reported = await askVersion(file); } catch (err) {
    if (err instanceof VersionProbeError && err.timedOut) throw invalidOption(`--node ${text}: ${file} timed out: ${err.message} (with anything it started). Give the path of a node binary.`);
    throw invalidOption(`--node ${text}: ${file} does not run as a node binary (${errorMessage(err)}).`);
  }
  const version = parseVersion(reported);
  if (!version) throw invalidOption(`--node ${text}: ${file} --version printed '${reported.slice(0, 80)}', not a Node.js version.`);
  return { version: version.join('.'), path: file, source: 'given' };
}

/**
 * `--node 24`, `--node 22.23.3`, `--node ~/.nvm/versions/node/v22.1.0/bin/node`: the newest installed
 * version that matches (version managers' folders, the PATH, Hotpath's cache), else the newest
 * matching release installed from the npm registry into Hotpath's cache.
 */
export async function resolveRuntime(text: string, options: ResolveRuntimeOptions = {}): Promise<NodeRuntime> {
  if (looksLikePath(text)) return fromPath(text);
  const spec = parseVersionSpec(text);
  if (!spec) throw invalidOption(`--node takes a Node.js version (22, 24.1, 22.23.3) or the path of a node binary (got '${text}').`);
  const found = options.found ?? await discoverRuntimes(options.discoverDeps ?? defaultDiscoverDeps());
  const local = bestMatch(found, spec);
  if (local) return verifyIfCached(local);
  if (options.install === false) {
    throw new HotpathError(ErrorCode.InvalidOption, `No Node ${spec.text} is installed on this machine (found: ${found.map((r) => r.version).join(', ') || 'none'}).`);
  }
  return installNode(spec, options.installDeps);
}
