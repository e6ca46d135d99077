import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { invalidOption } from '../core/common/errors';
import type { LoadOptionsInput } from '../core/load/options';
import type { AttachSpec } from '../core/target/attach';
import type { SideSpec } from '../core/variants/sides';
import type { InterleaveSettings } from '../core/workflow/interleave';
import { DEFAULT_SAMPLING_INTERVAL_BYTES } from '../core/memory/allocationSampler';
import { checkedName } from '../core/stats/baselineName';
import { bareFlags, parsePprofArgs, PPROF_OPTIONS, PPROF_USAGE, type PprofArgs } from './pprofArgs';
import { parseGateArgs, type GateArgs } from './gateArgs';

export const USAGE = `Usage:
  hotpath profile  [load options] [--json] [--out DIR] -- <command...>
  hotpath profile  --script [--json] [--out DIR] [--timeout S] -- <command...>
  hotpath profile  --attach PID|HOST:PORT|ws://URL --port N [load options] [--json]
  hotpath baseline [load options] [--runs N] [--name NAME] [--json] -- <command...>
  hotpath verify   [load options] [--runs N] [--name NAME] [--no-leak] [--json] -- <command...>
  hotpath leak     [load options] [--rung N] [--idle S] [--name NAME] [--json] -- <command...>
  hotpath report   [--json | --md] [--html OUT.html] [--sample-type T] [--label K=V] [--map-path FROM=TO] [--pprof OUT.pb.gz] <profile>
  hotpath report   [--html OUT.html] --diff <before> <after>       (profiles: .cpuprofile, pprof .pb.gz/.pprof, 0x folder)
  hotpath compare  [variants] [load options | --script] [--pairs N | --target-ci PCT --budget S] [--json] -- <command...>
  hotpath compare  --startup --node A --node B | --base REV [--pairs N] [--json] -- <command...>
  hotpath startup  [--runs N] [--warmup N] [--profile-runs N] [--until exit|listen] [--json] -- <command...>
  hotpath bench    <file> [--runs N] [--tasks A,B] [--compare A,B | --against FILE2] [--save NAME | --baseline NAME] [--json]

Load options:
  --url URL | --port N --path P    where to send load (default: the port the app listens on, path /)
  --method M, --header K:V (repeatable), --body TEXT
  --connections N (10), --duration S (10), --warmup S (3), --pipelining N (1)
  --request METHOD:PATH[:WEIGHT]   several routes in one run, e.g. --request GET:/orders:20
                                   --request GET:/report:1 (repeatable; results per route)
  --load-file FILE          the routes as JSON: {"requests": [{"method", "path", "headers",
                            "body", "weight"}, …]}

Memory and the event loop (profile):
  --memory                  sample allocations over the profiled window (V8's sampling heap
                            profiler, objects the GC already freed included): sites by bytes/request;
                            and list every GC pause (recording them costs the app)
  --memory-interval BYTES   mean bytes between allocation samples (default 32768)
  --block-threshold MS      loop turns at least this long are blocking episodes (default 20)
  The event-loop delay, utilization, GC share and blocking episodes are always reported.

Leak check (leak; baseline --leak keeps one with the baseline, verify repeats it):
  --rung N                  requests between the first heap measurements (default 2000): the heap
                            is measured after the warm-up, after N, 2N and 4N requests and after --idle
  --idle S                  seconds without load before the last measurement (default 5)
  --leak                    baseline: also run a leak check and keep its growth rate
  --no-leak                 verify: skip the leak check a baseline recorded

Attach (profile a running process, which keeps running):
  --attach PID              SIGUSR1 opens its inspector (on --inspect-port, default 9229)
  --attach 127.0.0.1:9229   an inspector already open on that port
  --attach ws://127.0.0.1:9229/<id>
  --inspect-port N          the inspector port of --attach PID (the app's --inspect-port)

Compare (A and B run alternately in pairs, A B B A …, on fresh processes; analysed paired):
  --base REV                A runs REV from a temporary git worktree (its dependencies installed when its
                            lock file differs, reused otherwise); B runs the working tree
  --node V|PATH             a Node version (22, 24.1, 22.23.3: found on this machine or installed from the
                            npm registry) or a node binary; twice: A's, then B's; once: both sides
  --env-a K=V, --env-b K=V  a variable for one side only (repeatable), e.g. --env-a NODE_ENV=development
  --node-arg-a F, --node-arg-b F  a node flag for one side only (repeatable), e.g. --node-arg-b --no-opt
  --label-a T, --label-b T  names for the sides
  --script                  time a command that runs to completion (wall and CPU time) instead of HTTP load
  --pairs N                 exactly N pairs; otherwise pairs are added until the interval is within
  --target-ci PCT           ±PCT % (default 5) or the time --budget S (default 120) runs out
  --min-pairs N, --max-pairs N  bounds of the adaptive run (5, 40)
  --prepare CMD             run CMD in each side's folder first (e.g. "npm run build"), through the shell;
                            a revision's reused node_modules are then copied, so it writes only into its own
  --allow-same-sides        run even when both sides resolve to the same files, node and settings (an A/A
                            comparison on purpose; refused otherwise, e.g. --base HEAD on a clean tree);
                            also for startup's --node, --base and --bisect-* lists
  --no-profile              skip the profile of each side (no differential flamegraph or function diff)
  --alpha A                 verify, compare, startup variants: chance of calling a change that is not there (default 0.05)
  load per run defaults to --duration 3 --warmup 1 (many short runs, interleaved, beat a few long ones)

Target options:
  --env K=V (repeatable)    set a variable in the app's environment, e.g. --env NODE_ENV=production
  --cwd DIR                 run the command in DIR (default: the current directory)
  --ready-timeout S         how long the app may take to listen (default 30)

Startup (cold starts of a command: a CLI until it exits, a server until it listens):
  --runs N                  timed starts (default: chosen from the measured variance, at least 10)
  --warmup N                discarded starts first (default 2)
  --profile-runs N          further starts profiled every --sampling-interval µs (default 100 µs) and
                            merged into one profile (default 10; 0: none)
  --until exit|listen       when startup is over (default: whichever comes first)
  --no-modules              do not time module loads in the timed starts
  --no-compile-cache        do not try Node's compile cache (tried when it is available and unused)
  --timeout S               longest one start may take (default 60)
  --node A --node B         compare the start on two Node runtimes (versions found on this machine, or
                            paths of node binaries): interleaved cold starts, paired ratio statistics
  --base REV                compare the start at git revision REV (a temporary worktree) with the working tree
  --bisect-node A,B,C…      the first Node version (oldest first) whose start is slower than the first one's
  --bisect-rev R1,R2,R3…    the first git revision (oldest first) whose start is slower than the first one's
  --pairs N                 exactly N pairs per comparison (default: 5 to 30, until the ratio is known to ±3%)

Benchmarks (a tinybench file, or node:bench on Node 26.9+; run with the node running Hotpath):
  --runs N                  fresh processes (default 5): the intervals are across them
  --tasks A,B               only these tasks
  --compare A,B             interleaved comparison of two tasks of the file (is B faster than A?)
  --against FILE2           interleaved comparison with another file's tasks of the same names
  --pairs N                 exactly N comparison pairs (default: 5 to 20, until the ratio is known to ±3%)
  --save NAME | --baseline NAME   store this run as a baseline, or compare with a stored one

Other options:
  --sampling-interval US    CPU sampling interval in microseconds (default: from the measured load's
                            length, ~5,000 samples, 2000 for 10 s, never under 1000; script 1000; startup 100)
  --limit N                 hotspots and lines to show (default 15)
  --no-workers              do not profile worker threads
  --no-v8                   do not collect V8's signals (tier, deopts, inlining) in the profile run
  --no-attribution          report: do not read sources; self time as V8 charged it (no call-site
                            lines, no own cost, inlined code left where V8 put it) — faster on huge profiles
  --html FILE               report: also write the flamegraph as one self-contained HTML file
                            (profile writes one next to the saved profile anyway)
  --diff                    report --html: a differential flamegraph of two profiles (before, after)
  --json                    print one JSON document on stdout (see README)
  --md                      profile, report: print the report as Markdown (headline first, tables, paths)
  --md FILE                 any command but report (there: --md=FILE): also write the report as Markdown
                            to FILE (verify, compare, startup comparisons, bench --baseline: the CI summary)

CI gate (verify, compare, startup --node/--base, bench --baseline):
  --fail-on slower|inconclusive|never   what fails the run (default slower; both: slower,inconclusive)
  --max-regression PCT      fail only when the interval shows a slowdown larger than PCT %
  --min-effect PCT          changes smaller than PCT % are worded as too small to matter
  --annotations github|none workflow-command annotations on stdout (default: github under GitHub
                            Actions, where the job summary and $GITHUB_OUTPUT are written too)
  --verbose                 log what happens to stderr
  -h, --help                show this help

${PPROF_USAGE}

Exit codes: 0 ok, 1 failed, 2 usage error, 3 a regression beyond the policy (verify, compare, startup, bench
--baseline), 4 inconclusive with --fail-on inconclusive, 130 interrupted.`;

const OPTIONS = {
  url: { type: 'string' }, port: { type: 'string' }, path: { type: 'string' }, method: { type: 'string' },
  header: { type: 'string', multiple: true }, body: { type: 'string' },
  connections: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' }, pipelining: { type: 'string' },
  env: { type: 'string', multiple: true }, cwd: { type: 'string' }, 'ready-timeout': { type: 'string' },
  'sampling-interval': { type: 'string' }, limit: { type: 'string' }, 'no-workers': { type: 'boolean' }, 'no-v8': { type: 'boolean' }, 'no-attribution': { type: 'boolean' },
  runs: { type: 'string' }, name: { type: 'string' }, out: { type: 'string' }, script: { type: 'boolean' },
  request: { type: 'string', multiple: true }, 'load-file': { type: 'string' },
  memory: { type: 'boolean' }, 'memory-interval': { type: 'string' }, 'block-threshold': { type: 'string' },
  rung: { type: 'string' }, idle: { type: 'string' }, leak: { type: 'boolean' }, 'no-leak': { type: 'boolean' },
  attach: { type: 'string' }, 'inspect-port': { type: 'string' },
  base: { type: 'string' }, node: { type: 'string', multiple: true }, 'env-a': { type: 'string', multiple: true }, 'env-b': { type: 'string', multiple: true },
  'node-arg-a': { type: 'string', multiple: true }, 'node-arg-b': { type: 'string', multiple: true }, 'label-a': { type: 'string' }, 'label-b': { type: 'string' },
  pairs: { type: 'string' }, 'target-ci': { type: 'string' }, budget: { type: 'string' }, 'min-pairs': { type: 'string' }, 'max-pairs': { type: 'string' },
  prepare: { type: 'string' }, 'no-profile': { type: 'boolean' }, 'allow-same-sides': { type: 'boolean' }, alpha: { type: 'string' },
  timeout: { type: 'string' }, 'profile-runs': { type: 'string' }, until: { type: 'string' }, 'no-modules': { type: 'boolean' }, 'no-compile-cache': { type: 'boolean' },
  'bisect-node': { type: 'string' }, 'bisect-rev': { type: 'string' }, startup: { type: 'boolean' },
  tasks: { type: 'string', multiple: true }, compare: { type: 'string', multiple: true }, against: { type: 'string' }, save: { type: 'string' }, baseline: { type: 'string' },
  html: { type: 'string' }, diff: { type: 'boolean' }, json: { type: 'boolean' }, md: { type: 'boolean' }, verbose: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  ...PPROF_OPTIONS,
  'md-file': { type: 'string' }, annotations: { type: 'string' }, 'fail-on': { type: 'string' }, 'max-regression': { type: 'string' }, 'min-effect': { type: 'string' },
} satisfies ParseArgsConfig['options'];

export type Subcommand = 'profile' | 'baseline' | 'verify' | 'report' | 'compare' | 'startup' | 'bench' | 'leak';

export interface CliArgs {
  attach?: AttachSpec;
  subcommand: Subcommand;
  command: string[];
  files: string[];
  load: LoadOptionsInput;
  port?: number;
  env: Record<string, string>;
  cwd: string;
  readyTimeoutMs: number;
  /** Unset: the workflow chooses (profile: from the measured window's length; script: 1000 µs). */
  samplingIntervalMicros: number | undefined;
  limit: number;
  workers: boolean;
  /** Collect V8's signals in profile runs (off with --no-v8). */
  v8: boolean;
  /** report: attribute time to call-site lines, inlined code and own cost (off with --no-attribution). */
  attribution: boolean;
  runs?: number;
  name?: string;
  out?: string;
  script: boolean;
  /** --load-file: read (and validated) when the command runs; its routes join `load.routes`. */
  loadFile?: string;
  /** profile --memory: the allocation sampling interval in bytes; undefined when off. */
  memoryIntervalBytes?: number;
  blockThresholdMs?: number;
  /** leak: requests between the first rungs, idle seconds before the last. */
  rungRequests?: number;
  idleSeconds?: number;
  /** baseline --leak (true), verify --no-leak (false). */
  leak?: boolean;
  timeoutMs?: number;
  /** report: write the flamegraph HTML here (absolute). */
  html?: string;
  /** report: `files` are [before, after]; the HTML is a differential flamegraph. */
  diff: boolean;
  /** startup: its own options (see parseStartup). */
  startup?: StartupArgs;
  /** bench: its own options (see parseBench). */
  bench?: BenchArgs;
  json: boolean;
  /** `--md`: the report as Markdown instead of the terminal text (profile, report). */
  md: boolean;
  /** `--md FILE`, the CI gate's policy and annotations (gateArgs.ts). */
  gate: GateArgs;
  verbose: boolean;
  help: boolean;
  /** compare: the variants and how long to measure. */
  compare?: CompareArgs;
  /** verify/compare: the family-wise significance level (default 0.05). */
  alpha?: number;
  /** The arguments as given (to suggest a `hotpath compare` line after a verify). */
  argv: string[];
  /** Production profiles: sample type, labels, path mappings, pprof export. */
  pprof: PprofArgs;
}

export interface CompareArgs {
  sides: [SideSpec, SideSpec];
  interleave: Partial<InterleaveSettings>;
  prepare?: string;
  profile: boolean;
  /** Run even when both sides resolve to the same code, node and settings (an A/A comparison on purpose). */
  allowSameSides: boolean;
}

function positiveInt(flag: string, raw: string | undefined, min = 1): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw invalidOption(`${flag} must be a whole number ≥ ${min} (got '${raw}').`);
  return n;
}

function nonNegativeSeconds(flag: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw invalidOption(`${flag} must be a number of seconds ≥ 0 (got '${raw}').`);
  return n;
}

function positiveSeconds(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw invalidOption(`${flag} must be a number of seconds > 0 (got '${raw}').`);
  return n;
}

/**
 * `--md FILE` (any command but report, whose positionals are files: there `--md=FILE`) becomes
 * `--md-file=FILE`; `--md` alone, or before another flag or `--`, stays the flag (Markdown on stdout).
 */
function mdFileArgs(argv: string[]): string[] {
  const end = argv.indexOf('--') === -1 ? argv.length : argv.indexOf('--');
  const sub = argv.slice(0, end).find((a) => !a.startsWith('-'));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (i < end && a.startsWith('--md=')) out.push(`--md-file=${a.slice(5)}`);
    else if (i < end && a === '--md' && sub !== 'report' && i + 1 < end && !argv[i + 1].startsWith('-') && argv[i + 1] !== sub) out.push(`--md-file=${argv[++i]}`);
    else out.push(a);
  }
  return out;
}

/** Options whose value is itself a flag (`--node-arg-b --no-opt`): joined as `--node-arg-b=--no-opt`. */
const FLAG_VALUED = new Set(['--node-arg-a', '--node-arg-b']);

function joinFlagValues(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (FLAG_VALUED.has(args[i]) && i + 1 < args.length && args[i + 1].startsWith('-')) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

function envPairs(flag: string, pairs: string[] | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw invalidOption(`${flag} takes NAME=VALUE (got '${pair}').`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

function positiveNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw invalidOption(`${flag} must be a number > 0 (got '${raw}').`);
  return n;
}

type Values = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

function compareArgs(values: Values): CompareArgs {
  const nodes = values.node ?? [];
  if (nodes.length > 2) throw invalidOption('--node is given at most twice: the first for side A, the second for side B.');
  const a: SideSpec = { env: envPairs('--env-a', values['env-a']), nodeArgs: values['node-arg-a'] ?? [] };
  const b: SideSpec = { env: envPairs('--env-b', values['env-b']), nodeArgs: values['node-arg-b'] ?? [] };
  if (values.base !== undefined) a.base = values.base;
  if (nodes.length) { a.node = nodes[0]; b.node = nodes[nodes.length - 1]; }
  if (values['label-a'] !== undefined) a.label = values['label-a'];
  if (values['label-b'] !== undefined) b.label = values['label-b'];
  const differs = values.base !== undefined || nodes.length === 2 && nodes[0] !== nodes[1] || JSON.stringify(a.env) !== JSON.stringify(b.env) || a.nodeArgs!.join(' ') !== b.nodeArgs!.join(' ');
  if (!differs && !values['allow-same-sides']) throw invalidOption('Nothing to compare: give the two sides something that differs — --base REV (a git revision against the working tree), --node A --node B, --env-a/--env-b K=V, or --node-arg-a/--node-arg-b FLAG (or --allow-same-sides for an A/A comparison on purpose).');
  const interleave: Partial<InterleaveSettings> = {};
  const pairs = positiveInt('--pairs', values.pairs, 2);
  if (pairs !== undefined) interleave.fixedPairs = pairs;
  const target = positiveNumber('--target-ci', values['target-ci']);
  if (target !== undefined) interleave.targetHalfWidthPct = target;
  const budget = positiveSeconds('--budget', values.budget);
  if (budget !== undefined) interleave.budgetMs = budget * 1000;
  const minPairs = positiveInt('--min-pairs', values['min-pairs'], 2);
  if (minPairs !== undefined) interleave.minPairs = minPairs;
  const maxPairs = positiveInt('--max-pairs', values['max-pairs'], 2);
  if (maxPairs !== undefined) interleave.maxPairs = maxPairs;
  if (pairs !== undefined && (target !== undefined || budget !== undefined)) throw invalidOption('--pairs runs exactly that many pairs; leave out --target-ci and --budget (or --pairs).');
  if ((interleave.minPairs ?? 5) > (interleave.maxPairs ?? Math.max(40, interleave.minPairs ?? 5))) throw invalidOption('--min-pairs must not exceed --max-pairs.');
  if (interleave.minPairs !== undefined && interleave.maxPairs === undefined && interleave.minPairs > 40) interleave.maxPairs = interleave.minPairs;
  return { sides: [a, b], interleave, prepare: values.prepare, profile: !values['no-profile'], allowSameSides: values['allow-same-sides'] === true };
}

export function parseCli(givenArgv: string[]): CliArgs {
  const rawArgv = mdFileArgs(givenArgv);
  const dashdash = rawArgv.indexOf('--');
  const argv = dashdash === -1 ? joinFlagValues(bareFlags(rawArgv)) : [...joinFlagValues(bareFlags(rawArgv.slice(0, dashdash))), ...rawArgv.slice(dashdash)];
  const own = dashdash === -1 ? argv : argv.slice(0, argv.indexOf('--'));
  const command = dashdash === -1 ? [] : rawArgv.slice(dashdash + 1);
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    // `--base -x`: node's advice (`--base=-XYZ`) would only meet the refusal of a revision starting with '-'.
    const base = own.indexOf('--base');
    if (/'--base' argument is ambiguous/.test((err as Error).message) && base !== -1) {
      throw invalidOption(`--base ${own[base + 1]}: a git revision cannot start with '-' (git would take it for an option). Name a commit, tag or branch, e.g. --base HEAD~1, --base main or --base 1a2b3c4.`);
    }
    throw invalidOption(`${(err as Error).message.replace(/\. To specify.*$/s, '')}. Run \`hotpath --help\` for the options.`);
  }
  const { values, positionals } = parsed;
  const [sub, ...files] = positionals;
  if (values.help || sub === undefined || sub === 'help') {
    return { help: true } as CliArgs;
  }
  if (!['profile', 'baseline', 'verify', 'report', 'compare', 'startup', 'bench', 'leak'].includes(sub)) throw invalidOption(`Unknown command '${sub}'. Use profile, baseline, verify, compare, leak, report, startup or bench.`);
  // `hotpath compare --startup` is `hotpath startup --node A --node B | --base REV`: cold starts of two
  // variants on the same interleaved engine.
  if (values.startup && sub !== 'compare') throw invalidOption('--startup works with `hotpath compare` (cold starts of two variants).');
  if (values.startup && values.node === undefined && values.base === undefined) throw invalidOption('`hotpath compare --startup` compares the cold starts of two variants: give --node A --node B or --base REV.');
  const subcommand = (values.startup ? 'startup' : sub) as Subcommand;
  if (values.html !== undefined && subcommand !== 'report') throw invalidOption('--html works with `hotpath report` (`hotpath profile` writes the HTML next to the profile).');
  if (values.html !== undefined && values.html.trim() === '') throw invalidOption('--html needs the path of the HTML file to write.');
  if (values.diff && subcommand !== 'report') throw invalidOption('--diff works with `hotpath report [--html OUT.html] --diff BEFORE AFTER`.');
  if (values.diff && files.length !== 2) throw invalidOption('`hotpath report --diff` takes two profiles: the one before (or production) and the one after (or local).');
  if (subcommand === 'report' && !values.diff && files.length !== 1) throw invalidOption('`hotpath report` takes exactly one .cpuprofile, pprof profile (.pb.gz, .pprof) or 0x output folder.');
  if (subcommand === 'bench' && files.length !== 1) throw invalidOption('`hotpath bench` takes one benchmark file, e.g. `hotpath bench bench/parse.bench.mjs`.');
  if (subcommand === 'bench' && command.length > 0) throw invalidOption('`hotpath bench FILE` runs the file with node itself: leave out the command after `--`.');
  if (subcommand !== 'report' && subcommand !== 'bench' && files.length > 0) throw invalidOption(`Unexpected '${files[0]}': put the app command after \`--\`, e.g. \`hotpath ${subcommand} -- node app.js\`.`);
  const attach = values.attach !== undefined ? parseAttach(values.attach, positiveInt('--inspect-port', values['inspect-port'])) : undefined;
  if (attach && (subcommand !== 'profile' || values.script)) throw invalidOption('--attach works with `hotpath profile` (HTTP load) only.');
  if (attach && command.length > 0) throw invalidOption('--attach profiles a running process: leave out the command after `--`.');
  if (subcommand !== 'report' && subcommand !== 'bench' && command.length === 0 && !attach) throw invalidOption(`\`hotpath ${subcommand}\` needs the command that starts your app after \`--\`, e.g. \`hotpath ${subcommand} -- node server.js\`.`);
  if (values.script && subcommand !== 'profile' && subcommand !== 'compare') throw invalidOption('--script works with `hotpath profile` and `hotpath compare`.');
  const compareOnly = (['env-a', 'env-b', 'node-arg-a', 'node-arg-b', 'label-a', 'label-b', 'target-ci', 'budget', 'min-pairs', 'max-pairs', 'prepare', 'no-profile'] as const).find((k) => values[k] !== undefined);
  if (compareOnly && subcommand !== 'compare') throw invalidOption(`--${compareOnly} works with \`hotpath compare\` only.`);
  for (const flag of ['node', 'base'] as const) {
    if (values[flag] !== undefined && subcommand !== 'compare' && subcommand !== 'startup') throw invalidOption(`--${flag} works with \`hotpath compare\` and \`hotpath startup\`.`);
  }
  for (const flag of ['profile-runs', 'until', 'no-modules', 'no-compile-cache', 'bisect-node', 'bisect-rev'] as const) {
    if (values[flag] !== undefined && subcommand !== 'startup') throw invalidOption(`--${flag} works with \`hotpath startup\` only.`);
  }
  const compare = subcommand === 'compare' ? compareArgs(values) : undefined;
  const startup = subcommand === 'startup' ? parseStartup(values) : undefined;
  if (values.alpha !== undefined && subcommand !== 'compare' && subcommand !== 'verify' && !(subcommand === 'startup' && startup?.variants)) throw invalidOption('--alpha works with `hotpath verify`, `hotpath compare` and `hotpath startup --node/--base/--bisect-*`.');
  const alpha = values.alpha === undefined ? undefined : Number(values.alpha);
  if (alpha !== undefined && !(alpha > 0 && alpha < 0.5)) throw invalidOption(`--alpha must be between 0 and 0.5, e.g. 0.01 (got '${values.alpha}').`);
  if (compare && alpha !== undefined) compare.interleave.alpha = alpha;
  if (values['allow-same-sides'] && subcommand !== 'compare' && !startup?.variants) throw invalidOption('--allow-same-sides works with `hotpath compare` and `hotpath startup --node/--base/--bisect-*`.');
  if (values.pairs !== undefined && subcommand !== 'compare' && subcommand !== 'bench' && !(subcommand === 'startup' && startup?.variants)) throw invalidOption('--pairs works with `hotpath compare`, `hotpath bench --compare/--against` and `hotpath startup --node/--base/--bisect-*`.');
  for (const flag of ['tasks', 'compare', 'against', 'save', 'baseline'] as const) {
    if (values[flag] !== undefined && subcommand !== 'bench') throw invalidOption(`--${flag} works with \`hotpath bench\` only.`);
  }
  const bench = subcommand === 'bench' ? parseBench(values) : undefined;
  if ((values.memory || values['memory-interval'] !== undefined) && (subcommand !== 'profile' || values.script)) throw invalidOption('--memory works with `hotpath profile` under load (`hotpath leak` checks for leaks).');
  if (values['block-threshold'] !== undefined && (subcommand !== 'profile' || values.script)) throw invalidOption('--block-threshold works with `hotpath profile` under load.');
  if ((values.rung !== undefined || values.idle !== undefined) && !(subcommand === 'leak' || (subcommand === 'baseline' && values.leak) || subcommand === 'verify')) throw invalidOption('--rung and --idle set the leak check: use them with `hotpath leak`, `hotpath baseline --leak` or `hotpath verify`.');
  if (values.leak && subcommand !== 'baseline') throw invalidOption(subcommand === 'leak' ? '`hotpath leak` always checks for leaks; --leak is for `hotpath baseline`.' : '--leak works with `hotpath baseline` (verify repeats the check a baseline recorded; --no-leak skips it).');
  if (values.md && subcommand !== 'report' && subcommand !== 'profile') throw invalidOption('--md alone (Markdown on stdout) works with `hotpath report` and `hotpath profile`; other commands write it to a file: --md FILE.');
  const gate = parseGateArgs(values, subcommand, Boolean(startup?.variants), Boolean(bench?.baseline));
  if (values.md && values.json) throw invalidOption('--md and --json each print one document: choose one.');
  if (values['no-leak'] && subcommand !== 'verify') throw invalidOption('--no-leak works with `hotpath verify`.');
  if ((values.request !== undefined || values['load-file'] !== undefined) && (subcommand === 'report' || values.script)) throw invalidOption('--request and --load-file describe HTTP load: use them with profile, baseline, verify or leak.');
  if ((values.request !== undefined || values['load-file'] !== undefined) && (values.path !== undefined || values.method !== undefined || values.body !== undefined)) {
    throw invalidOption('--request and --load-file name each route\'s method and path: leave out --path, --method and --body (--header applies to every route).');
  }

  const env: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw invalidOption(`--env takes NAME=VALUE (got '${pair}').`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const load: LoadOptionsInput = {};
  if (values.url !== undefined) load.url = values.url;
  if (values.path !== undefined) load.path = values.path;
  if (values.method !== undefined) load.method = values.method;
  if (values.header !== undefined) load.headers = values.header;
  if (values.body !== undefined) load.body = values.body;
  if (values.connections !== undefined) load.connections = values.connections;
  if (values.duration !== undefined) load.durationSeconds = values.duration;
  if (values.warmup !== undefined) load.warmupSeconds = values.warmup;
  if (values.pipelining !== undefined) load.pipelining = values.pipelining;
  if (values.request !== undefined) load.routes = values.request;
  const port = positiveInt('--port', values.port);
  if (port !== undefined && port > 65535) throw invalidOption(`--port must be at most 65535 (got ${port}).`);
  let urlPort: number | undefined;
  if (load.url !== undefined) {
    try { const u = new URL(String(load.url)); urlPort = Number(u.port || (u.protocol === 'https:' ? 443 : 80)); } catch { /* validated with the load options */ }
  }

  return {
    attach,
    subcommand, command, files, load, port: port ?? urlPort, env,
    cwd: path.resolve(values.cwd ?? process.cwd()),
    readyTimeoutMs: (positiveSeconds('--ready-timeout', values['ready-timeout']) ?? 30) * 1000,
    // Unset for profile: chosen from the measured window's length (every 2000 µs for the default 10 s).
    samplingIntervalMicros: positiveInt('--sampling-interval', values['sampling-interval'], 10) ?? (subcommand === 'startup' ? 100 : undefined),
    limit: positiveInt('--limit', values.limit) ?? 15,
    workers: !values['no-workers'],
    v8: !values['no-v8'],
    attribution: !values['no-attribution'],
    runs: positiveInt('--runs', values.runs, subcommand === 'bench' ? 1 : 2),
    name: values.name !== undefined ? checkedName(values.name, '--name') : undefined,
    out: values.out ? path.resolve(values.out) : undefined,
    script: Boolean(values.script),
    loadFile: values['load-file'] !== undefined ? path.resolve(values['load-file']) : undefined,
    memoryIntervalBytes: values.memory || values['memory-interval'] !== undefined ? positiveInt('--memory-interval', values['memory-interval'], 512) ?? DEFAULT_SAMPLING_INTERVAL_BYTES : undefined,
    blockThresholdMs: positiveInt('--block-threshold', values['block-threshold'], 2),
    rungRequests: positiveInt('--rung', values.rung, 10),
    idleSeconds: values.idle !== undefined ? nonNegativeSeconds('--idle', values.idle) : undefined,
    leak: values.leak ? true : values['no-leak'] ? false : undefined,
    timeoutMs: values.timeout !== undefined ? positiveSeconds('--timeout', values.timeout)! * 1000 : undefined,
    html: values.html !== undefined ? path.resolve(values.html) : undefined,
    diff: Boolean(values.diff),
    ...(startup ? { startup } : {}),
    ...(bench ? { bench } : {}),
    json: Boolean(values.json),
    md: Boolean(values.md),
    gate,
    verbose: Boolean(values.verbose),
    help: false,
    compare,
    alpha,
    argv: givenArgv,
    pprof: parsePprofArgs(values, subcommand),
  };
}

export interface StartupArgs {
  /** Comparing or bisecting variants instead of measuring one start. */
  variants?: { nodes?: string[]; base?: string; revisions?: string[]; bisect: boolean; pairs?: number; allowSameSides?: boolean };
  warmup: number;
  profileRuns: number;
  until: 'auto' | 'exit' | 'listen';
  modules: boolean;
  compileCache: boolean;
}

function parseStartup(values: { pairs?: string; warmup?: string; 'profile-runs'?: string; until?: string; 'no-modules'?: boolean; 'no-compile-cache'?: boolean; node?: string[]; base?: string; 'bisect-node'?: string; 'bisect-rev'?: string; 'allow-same-sides'?: boolean }): StartupArgs {
  const split = (v: string | undefined) => v?.split(',').map((x) => x.trim()).filter(Boolean);
  const chosen = [values.node?.length ? '--node' : '', values.base !== undefined ? '--base' : '', values['bisect-node'] ? '--bisect-node' : '', values['bisect-rev'] ? '--bisect-rev' : ''].filter(Boolean);
  if (chosen.length > 1) throw invalidOption(`Use one of ${chosen.join(', ')} at a time.`);
  if (values.node && values.node.length !== 2) throw invalidOption(`--node compares two runtimes: give it twice, e.g. --node 22 --node 24 (got ${values.node.length}).`);
  const bisectList = split(values['bisect-node']) ?? split(values['bisect-rev']);
  if (bisectList && bisectList.length < 2) throw invalidOption('--bisect-node / --bisect-rev take at least two comma-separated variants, oldest first.');
  const pairs = positiveInt('--pairs', values.pairs, 2);
  const chosenVariants = values.node ? { nodes: values.node, bisect: false }
    : values.base !== undefined ? { base: values.base, bisect: false }
      : values['bisect-node'] ? { nodes: bisectList, bisect: true }
        : values['bisect-rev'] ? { revisions: bisectList, bisect: true } : undefined;
  const variants = chosenVariants && { ...chosenVariants, ...(pairs !== undefined ? { pairs } : {}), ...(values['allow-same-sides'] ? { allowSameSides: true } : {}) };
  const count = (flag: string, raw: string | undefined, fallback: number) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw invalidOption(`${flag} takes a number of starts ≥ 0 (got '${raw}').`);
    return n;
  };
  const until = values.until ?? 'auto';
  if (!['auto', 'exit', 'listen'].includes(until)) throw invalidOption(`--until takes exit or listen (got '${until}').`);
  return {
    ...(variants ? { variants } : {}),
    warmup: count('--warmup', values.warmup, 2),
    profileRuns: count('--profile-runs', values['profile-runs'], 10),
    until: until as StartupArgs['until'],
    modules: !values['no-modules'],
    compileCache: !values['no-compile-cache'],
  };
}

export interface BenchArgs {
  tasks?: string[];
  compareTasks?: [string, string];
  against?: string;
  pairs?: number;
  save?: string;
  baseline?: string;
}

const list = (values: string[] | undefined) => values?.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);

function parseBench(values: { tasks?: string[]; compare?: string[]; against?: string; pairs?: string; save?: string; baseline?: string }): BenchArgs {
  const compare = list(values.compare);
  if (compare && compare.length !== 2) throw invalidOption(`--compare takes two task names, e.g. --compare slow,fast (got ${compare.length}).`);
  if (compare && values.against !== undefined) throw invalidOption('Use --compare (two tasks of one file) or --against (another file), not both.');
  if (values.save !== undefined && values.baseline !== undefined) throw invalidOption('Use --save NAME or --baseline NAME, not both.');
  const pairs = positiveInt('--pairs', values.pairs, 2);
  return {
    ...(list(values.tasks)?.length ? { tasks: list(values.tasks) } : {}),
    ...(compare ? { compareTasks: [compare[0], compare[1]] as [string, string] } : {}),
    ...(values.against !== undefined ? { against: values.against } : {}),
    ...(pairs !== undefined ? { pairs } : {}),
    ...(values.save !== undefined ? { save: checkedName(values.save, '--save') } : {}),
    ...(values.baseline !== undefined ? { baseline: checkedName(values.baseline, '--baseline') } : {}),
  };
}

/** `--attach 1234` (PID), `--attach 127.0.0.1:9229` (open inspector), `--attach ws://127.0.0.1:9229/<id>`. */
export function parseAttach(value: string, inspectPort?: number): AttachSpec {
  if (/^ws:\/\//.test(value)) return { inspectorUrl: value };
  if (/^\d+$/.test(value)) return { pid: Number(value), inspectorPort: inspectPort };
  const hostPort = /^(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)$/.exec(value);
  if (hostPort) return { inspectorPort: Number(hostPort[1]) };
  throw invalidOption(`--attach takes a PID, 127.0.0.1:<inspector port> or a ws://127.0.0.1:… inspector URL (got '${value}'); only loopback inspectors are allowed.`);
}
