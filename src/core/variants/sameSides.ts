/**
 * Whether the two sides of a comparison really differ. An A/A comparison by accident — `--base HEAD` on
 * a clean tree, `--node v20 --node 20` finding one binary — is the worst wrong answer a comparison can
 * give: "no significant change", confidently, about a change that was never measured. So it is refused
 * before anything runs, unless asked for (an A/A run calibrates how far two identical sides differ on
 * this machine). A variable or node flag that differs counts as a real difference: it is what the user
 * chose to compare (and is how an A/A calibration has always been spelled).
 */
import { invalidOption } from '../common/errors';
import type { Warning } from '../common/warnings';
import type { SideSpec } from './sides';

/** What one side runs, as far as can be told before it runs. */
export interface SideIdentity {
  /** The code: a commit's tree id, or the working tree with its uncommitted changes; equal strings, equal files. */
  code: string;
  /** The code in words: `HEAD (1a2b3c4)`, `the working tree (1a2b3c4, no uncommitted changes)`. */
  codeText: string;
  /** The node binary (real path) the side runs; null when none was named and none is on PATH. */
  node: string | null;
  nodeVersion: string | null;
  env: Record<string, string>;
  nodeArgs: string[];
}

const sameEnv = (a: Record<string, string>, b: Record<string, string>) => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => a[k] === b[k]);
};

/**
 * How the command at hand names its sides, for the messages: `hotpath compare --base … --node …` (the
 * default), `hotpath startup`, a bisect's `--bisect-rev c1,c2,…` (each entry a side).
 */
export interface SidesWording {
  /** The command, for the `--allow-same-sides` hint. */
  command: string;
  /** What the two sides checked are called: `Both sides`, `Entries 1 and 3 of --bisect-node`. */
  subject: string;
  /** The side names in the two-binaries warning: `A`, `B`. */
  names: [string, string];
  /** The flags a revision and a runtime were given with, to quote what was asked: `--base`, `--bisect-rev`. */
  revisionFlag: string;
  nodeFlag: string;
}

export const COMPARE_WORDING: SidesWording = { command: 'hotpath compare', subject: 'Both sides', names: ['A', 'B'], revisionFlag: '--base', nodeFlag: '--node' };

/** Why the sides are the same, naming what the user gave that looked different. */
function sameBecause(specs: [SideSpec, SideSpec], ids: [SideIdentity, SideIdentity], wording: SidesWording): { why: string; fix: string } {
  const [a, b] = ids;
  const parts: string[] = [];
  const fixes: string[] = [];
  if (specs[0].base !== undefined || specs[1].base !== undefined) {
    parts.push(`${a.codeText} has the same files as ${b.codeText}`);
    fixes.push(specs[0].base !== undefined && specs[1].base !== undefined
      ? 'name revisions whose files differ'
      : `make your change first (uncommitted changes count) or compare with another revision, e.g. ${wording.revisionFlag} HEAD~1`);
  }
  if (specs[0].node !== undefined && specs[1].node !== undefined) {
    const asked = specs[0].node === specs[1].node ? `${wording.nodeFlag} ${specs[0].node} twice runs` : `${wording.nodeFlag} ${specs[0].node} and ${wording.nodeFlag} ${specs[1].node} are`;
    parts.push(`${asked} one binary, ${a.node ?? 'node'}${a.nodeVersion ? ` (Node ${a.nodeVersion})` : ''}`);
    fixes.push('give two different versions or binaries');
  }
  if (!parts.length) parts.push('nothing differs between the two sides');
  return { why: `${parts.join('; ')}.`, fix: fixes.length ? ` To compare, ${fixes.join(', or ')}.` : '' };
}

/**
 * Refuses sides that run the same code on the same node with the same variables and flags (a usage
 * error), unless `allowSame`; then, and for one Node version from two binaries, returns what the
 * result must say about it.
 */
export function checkSidesDiffer(specs: [SideSpec, SideSpec], ids: [SideIdentity, SideIdentity], allowSame: boolean, wording: SidesWording = COMPARE_WORDING): Warning[] {
  const [a, b] = ids;
  const sameSettings = sameEnv(a.env, b.env) && a.nodeArgs.join('\0') === b.nodeArgs.join('\0');
  if (a.code === b.code && a.node === b.node && sameSettings) {
    const { why, fix } = sameBecause(specs, ids, wording);
    if (!allowSame) {
      throw invalidOption(`${wording.subject} would run the same files on the same Node with the same settings: ${why} That is an A/A comparison, whose verdict can only be noise.${fix} To run an A/A comparison on purpose (to see how far two identical sides differ on this machine), use ${wording.command} --allow-same-sides.`);
    }
    return [{ code: 'SIDES_IDENTICAL', message: `An A/A comparison, as asked (--allow-same-sides): ${why} Any difference it finds is noise or drift, not a change.` }];
  }
  if (a.code === b.code && sameSettings && a.node !== b.node && a.nodeVersion !== null && a.nodeVersion === b.nodeVersion) {
    const [na, nb] = wording.names;
    return [{
      code: 'SAME_NODE_VERSION_TWO_BINARIES',
      message: `${wording.subject} run Node ${a.nodeVersion}, from two binaries (${na}: ${a.node}, ${nb}: ${b.node}): the comparison measures how the two builds differ. If you meant two versions, give ${wording.nodeFlag} two different ones.`,
    }];
  }
  return [];
}
