/**
 * What a run leaves for CI besides its text: the gate's exit code (verify, compare, startup comparisons,
 * bench --baseline), `--md FILE`, and under GitHub Actions the job summary, `$GITHUB_OUTPUT` and
 * annotations (src/core/ci).
 */
import * as fs from 'node:fs';
import { annotationsFor, compareLineChanges, workflowCommands } from '../core/ci/annotations';
import { gatedResult, gateOf } from '../core/ci/gate';
import { appendOutputs, appendSummary, githubEnvironment } from '../core/ci/github';
import type { GateResult } from '../core/ci/policy';
import { ciMarkdown, type CiSummaryOptions, type GatedResult } from '../core/ci/summary';
import { errorMessage, HotpathError, ErrorCode } from '../core/common/errors';
import { buildReport, renderMarkdown, type RunResultAny } from '../core/report';
import { DEFAULT_INTERLEAVE } from '../core/workflow/interleave';
import { terminalText } from '../shared/text/safe';
import type { CliArgs } from './args';
import { EXIT_INCONCLUSIVE, EXIT_OK, EXIT_REGRESSION } from './exitCodes';

export interface CiOutcome {
  /** The gate's exit code (0, 3 or 4), for gated runs. */
  exitCode?: number;
  /** Workflow-command lines to print (annotations), each without a newline. */
  commands: string[];
}

function exitCodeOf(gate: GateResult): number {
  if (!gate.failed) return EXIT_OK;
  return gate.outcome === 'regression' ? EXIT_REGRESSION : EXIT_INCONCLUSIVE;
}

const round = (n: number | null) => (n === null ? '' : String(Math.round(n * 1e4) / 1e4));
const outputKey = (key: string) => key.replace(/[^A-Za-z0-9_-]/g, '_');

/** `$GITHUB_OUTPUT`: the verdict, the gate, and each deciding metric's ratio and interval. */
export function gateOutputs(r: GatedResult, gate: GateResult, exitCode: number, mdFile: string | undefined): Array<[string, string]> {
  const first = gate.deciding[0];
  return [
    ['verdict', r.comparison!.verdict],
    ['gate', gate.outcome],
    ['failed', String(gate.failed)],
    ['exit-code', String(exitCode)],
    ['deciding', gate.deciding.map((m) => m.key).join(',')],
    ...(first ? [['ratio', round(first.ratio)], ['ci-low', round(first.ciLow)], ['ci-high', round(first.ciHigh)]] as Array<[string, string]> : []),
    ...gate.deciding.flatMap((m): Array<[string, string]> => [[`${outputKey(m.key)}-ratio`, round(m.ratio)], [`${outputKey(m.key)}-ci-low`, round(m.ciLow)], [`${outputKey(m.key)}-ci-high`, round(m.ciHigh)]]),
    ...(mdFile ? [['markdown-file', mdFile]] as Array<[string, string]> : []),
  ];
}

function say(text: string): void {
  process.stderr.write(`hotpath: ${terminalText(text, true)}\n`);
}

export async function ciOutputs(result: RunResultAny, args: CliArgs, context: { flamegraphPath: string | null; compareCommand?: string }): Promise<CiOutcome> {
  const github = githubEnvironment();
  const gated = gatedResult(result);
  const { mdFile, policy } = args.gate;
  if (!gated) {
    if (mdFile) writeMarkdown(mdFile, renderMarkdown(buildReport(result, { cwd: args.cwd, flamegraphPath: context.flamegraphPath, limit: args.limit, compareCommand: context.compareCommand }), { cwd: args.cwd }));
    return { commands: [] };
  }
  const gate = gateOf(gated, policy);
  const exitCode = exitCodeOf(gate);
  const interleave = args.compare?.interleave;
  const options: CiSummaryOptions = {
    cwd: args.cwd, policy, exitCode, limit: Math.min(args.limit, 15), flamegraphPath: context.flamegraphPath, compareCommand: context.compareCommand,
    ...(gated.kind === 'compare' && interleave?.fixedPairs === undefined ? { budgetSeconds: Math.round((interleave?.budgetMs ?? DEFAULT_INTERLEAVE.budgetMs) / 1000) } : {}),
  };
  const markdown = ciMarkdown(gated, gate, options);
  if (mdFile) writeMarkdown(mdFile, markdown);
  if (github?.summaryPath) {
    try {
      appendSummary(github.summaryPath, { full: markdown, short: () => ciMarkdown(gated, gate, options, true), whole: mdFile ? `the whole report is in ${mdFile}` : 'run with --md FILE and upload it for the whole report' });
    } catch (err) {
      say(`could not append the job summary to $GITHUB_STEP_SUMMARY (${github.summaryPath}): ${errorMessage(err)}`);
    }
  }
  if (github?.outputPath) {
    try {
      appendOutputs(github.outputPath, gateOutputs(gated, gate, exitCode, mdFile));
    } catch (err) {
      say(`could not write the step's outputs to $GITHUB_OUTPUT (${github.outputPath}): ${errorMessage(err)}`);
    }
  }
  const annotate = (args.gate.annotations ?? (github ? 'github' : 'none')) === 'github';
  if (!annotate) return { exitCode, commands: [] };
  const changes = gated.kind === 'compare' ? await compareLineChanges(gated).catch((err) => { say(`annotations without lines: ${errorMessage(err)}`); return undefined; }) : undefined;
  const kind = gated.kind === 'startup-compare' ? 'startup' : gated.kind;
  return { exitCode, commands: workflowCommands(annotationsFor(gate, gated.comparison!.verdict, kind, changes)) };
}

function writeMarkdown(file: string, markdown: string): void {
  try {
    fs.writeFileSync(file, markdown);
  } catch (err) {
    throw new HotpathError(ErrorCode.OutputNotWritten, `--md ${file}: could not write the Markdown report: ${errorMessage(err)}. Give a path in a folder that exists and can be written.`);
  }
}
