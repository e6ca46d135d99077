/** The CI gate's command-line options: `--md FILE`, `--fail-on`, `--max-regression`, `--min-effect`, `--annotations`. */
import * as path from 'node:path';
import { invalidOption } from '../core/common/errors';
import { DEFAULT_POLICY, type FailOn, type GatePolicy } from '../core/ci/gatePolicy';

export interface GateArgs {
  /** `--md FILE`: where the Markdown report goes (absolute). */
  mdFile?: string;
  policy: GatePolicy;
  /** `--annotations`; undefined: github under GitHub Actions, else none. */
  annotations?: 'github' | 'none';
}

interface GateValues { 'md-file'?: string; annotations?: string; 'fail-on'?: string; 'max-regression'?: string; 'min-effect'?: string }

/** A Markdown file must not overwrite code, data or a profile by a slip of the argument order. */
const NOT_MARKDOWN = /\.(?:[cm]?[jt]sx?|json|cpuprofile|heapprofile|html?)$/i;

function percent(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw.replace(/%$/, ''));
  if (!Number.isFinite(n) || n < 0 || n >= 100) throw invalidOption(`${flag} takes a percentage from 0 to 100, e.g. ${flag} 10 (got '${raw}').`);
  return n;
}

export function parseGateArgs(values: GateValues, subcommand: string, startupVariants: boolean, benchBaseline: boolean): GateArgs {
  const gated = subcommand === 'verify' || subcommand === 'compare' || (subcommand === 'startup' && startupVariants) || (subcommand === 'bench' && benchBaseline);
  const given = (['fail-on', 'max-regression', 'min-effect', 'annotations'] as const).find((k) => values[k] !== undefined);
  if (given && !gated) throw invalidOption(`--${given} sets the CI gate of a comparison: use it with verify, compare, startup --node/--base, or bench --baseline.`);
  const mdFile = values['md-file'];
  if (mdFile !== undefined && (mdFile.trim() === '' || NOT_MARKDOWN.test(mdFile))) throw invalidOption(`--md FILE writes Markdown: give a file such as hotpath-report.md (got '${mdFile}').`);
  let failOn: Set<FailOn> = new Set(DEFAULT_POLICY.failOn);
  if (values['fail-on'] !== undefined) {
    const words = values['fail-on'].split(',').map((w) => w.trim()).filter(Boolean);
    const bad = words.find((w) => !['slower', 'inconclusive', 'never'].includes(w));
    if (bad || !words.length || (words.includes('never') && words.length > 1)) throw invalidOption(`--fail-on takes slower, inconclusive, slower,inconclusive or never (got '${values['fail-on']}').`);
    failOn = new Set(words.filter((w): w is FailOn => w !== 'never'));
  }
  const annotations = values.annotations;
  if (annotations !== undefined && annotations !== 'github' && annotations !== 'none') throw invalidOption(`--annotations takes github or none (got '${annotations}').`);
  const maxRegressionPct = percent('--max-regression', values['max-regression']);
  const minEffectPct = percent('--min-effect', values['min-effect']);
  return {
    ...(mdFile !== undefined ? { mdFile: path.resolve(mdFile) } : {}),
    policy: { failOn, ...(maxRegressionPct !== undefined ? { maxRegressionPct } : {}), ...(minEffectPct !== undefined ? { minEffectPct } : {}) },
    ...(annotations ? { annotations } : {}),
  };
}
