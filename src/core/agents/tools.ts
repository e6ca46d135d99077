/**
 * Hotpath's tools for agents, declared once: name, description, input schema and hints. The MCP server
 * (`hotpath mcp`), VS Code's language-model tools (`contributes.languageModelTools`, a test keeps
 * package.json equal to this) and the README are all read from here.
 */
import type { JsonSchema } from './schema';

export type ToolName =
  | 'hotpath_profile' | 'hotpath_status' | 'hotpath_hot_lines' | 'hotpath_explain' | 'hotpath_baseline' | 'hotpath_verify'
  | 'hotpath_compare' | 'hotpath_leak' | 'hotpath_startup' | 'hotpath_bench' | 'hotpath_report';

export interface ToolDefinition {
  name: ToolName;
  /** Short title for people (VS Code's tool picker, MCP `title`). */
  title: string;
  /** What it does, returns, when to use it and its limits: for the model. */
  description: string;
  /** For people, in VS Code's tool list. */
  userDescription: string;
  inputSchema: JsonSchema & { type: 'object' };
  /** Starts the user's code (asks for confirmation with the exact command); otherwise reads files only. */
  startsProcesses: boolean;
}

/** How long a call waits before it answers with a runId (clients end calls after about 60 s). */
export const DEFAULT_WAIT_SECONDS = 45;
export const MAX_WAIT_SECONDS = 50;
/** Characters per answer unless the client asks for fewer (VS Code's token budget). */
export const DEFAULT_BUDGET = 8000;

const str = (description: string, extra: Partial<JsonSchema> = {}): JsonSchema => ({ type: 'string', description, ...extra });
const num = (description: string, minimum: number, maximum: number, integer = false): JsonSchema => ({ type: integer ? 'integer' : 'number', description, minimum, maximum });
const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
const strings = (description: string, extra: Partial<JsonSchema> = {}): JsonSchema => ({ type: 'array', items: { type: 'string' }, description, ...extra });
const stringMap = (description: string): JsonSchema => ({ type: 'object', additionalProperties: { type: 'string' }, description });
const object = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema & { type: 'object' } =>
  ({ type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false });

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

const command = strings('The command that starts the app, as argv (no shell), e.g. ["node", "server.js"] or ["npm", "start"].', { minItems: 1 });
const cwd = str('Directory to run in: absolute, or relative to the workspace root; must be inside the workspace. Default: the workspace root.');
const env = stringMap('Environment variables for the app, e.g. {"NODE_ENV": "production"}.');
const wait = num(`Seconds to wait for the result before answering with a runId to poll with hotpath_status (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}).`, 0, MAX_WAIT_SECONDS);
const load = {
  path: str('Request path the load sends, e.g. "/orders?id=7". Default: the URL the app prints at startup, else "/".'),
  method: { type: 'string', enum: METHODS, description: 'HTTP method of the load (default GET).' } as JsonSchema,
  requests: {
    type: 'array', description: 'Several routes in one run, with weights: [{"method": "GET", "path": "/orders", "weight": 20}, {"path": "/report", "weight": 1}].', minItems: 1,
    items: object({ method: { type: 'string', enum: METHODS }, path: str('Request path.', { minLength: 1 }), weight: num('Relative share of the requests (default 1).', 1, 1000, true) }, ['path']),
  } as JsonSchema,
  duration: num('Seconds of measured load (default 10; compare: 3 per run).', 1, 300),
  warmup: num('Seconds of warm-up load before measuring (default 3; compare: 1).', 0, 60),
  connections: num('Concurrent connections (default 10).', 1, 1000, true),
  port: num('The port the app listens on, when Hotpath cannot see it (it usually can).', 1, 65535, true),
};
const target = { command, cwd, env, ...load, wait };
const source = {
  runId: str('A run of this session (from hotpath_profile or hotpath_startup).'),
  profile: str('A profile instead of a run (absolute, or relative to the workspace root): a .cpuprofile (a run\'s main profile brings its worker threads), a pprof file (.pb.gz, .pprof: Datadog, Pyroscope, Cloud Profiler, go tool pprof) or a 0x output folder.'),
};
/** How to read a production profile (`profile` only): as `hotpath report`'s --sample-type, --label and --map-path. */
const read = {
  sampleType: str('pprof: the sample type to show — cpu, wall, samples, alloc_space, inuse_space, alloc_objects, inuse_objects (default cpu, else wall; the answer lists the profile\'s types). With `profile` only.', { minLength: 1 }),
  labels: strings('pprof: keep only the samples with these labels, each "KEY=VALUE" (the same key twice: either value; different keys: all), e.g. ["trace endpoint=GET /orders"]. With `profile` only.', { minItems: 1 }),
  mapPath: stringMap('pprof, 0x: the profile\'s paths under a prefix (another machine\'s) are the workspace\'s under a folder (absolute, or relative to the workspace root), e.g. {"/usr/src/app": "."}. Without it the longest path suffix found in the workspace is used; the answer lists the files not found and why. With `profile` only.'),
};

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'hotpath_profile', title: 'Profile a Node.js app',
    userDescription: 'Starts the app, puts it under HTTP load (or runs a script to completion) and records a CPU profile.',
    description: 'Profiles a Node.js app: starts `command` (argv, no shell) in `cwd`, warms it up, records a CPU profile under autocannon HTTP load on 127.0.0.1 (or, with `script: true`, profiles a command that runs to completion), stops it, and answers with the headline (the user function with the most own cost and the throughput), the hotspots, the hot lines, V8 tiers and deopts, the checks and the profile path. Use it first, to find the bottleneck; then hotpath_hot_lines and hotpath_explain on the runId; after a fix, hotpath_verify or hotpath_compare. A call answers within 50 s: a longer run answers {runId, status: "running"} — poll it with hotpath_status. Set NODE_ENV=production in `env` for servers that read it. One run at a time.',
    inputSchema: object({ ...target, script: bool('Profile a command that runs to completion (a build, a CLI) instead of a server under load.'), memory: bool('Also sample allocations (bytes per request per function) during the profile.'), timeout: num('script: stop the command after this many seconds (default 300).', 1, 3600) }, ['command']),
    startsProcesses: true,
  },
  {
    name: 'hotpath_status', title: 'Wait for a Hotpath run',
    userDescription: 'Progress of a run, or its result when done; can cancel it.',
    description: `The progress of a run started by another hotpath tool, or its result once done (the same answer the tool would have given). Waits up to \`wait\` seconds (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}) for the run to finish before answering with its progress; call it again while status is "running". \`cancel: true\` stops the run and its app at once.`,
    inputSchema: object({ runId: str('The runId a hotpath tool answered with.', { minLength: 1 }), wait, cancel: bool('Stop the run (its app and load) instead of waiting.') }, ['runId']),
    startsProcesses: false,
  },
  {
    name: 'hotpath_hot_lines', title: 'Hot lines of a profile',
    userDescription: 'The lines the time went to, one row per line, with V8 tier and deopts.',
    description: 'The lines of code the CPU time went to, one row per line, heaviest own time first: `file:line`, the function, own share (self plus the dependency, Node and native code called there: what a change to that line can remove), self and total share and ms, V8 tier, deopts with the top reason, the frame its code ran inlined into, and the callee behind an inclusive line. From a run (`runId`) or any profile Hotpath opens (`profile`: .cpuprofile, pprof, 0x); a run with worker threads covers every thread (a Thread column; shares of all threads\' time together). A function-level profile (most pprof producers, 0x) has no lines: the answer says so and lists its functions instead; a heap profile lists its allocation sites in bytes or objects. `file` keeps one file\'s lines; page with `limit` and `offset`. Read-only.',
    inputSchema: object({ ...source, ...read, file: str('Only lines of this file (a path or its end, e.g. "lib/report.js").'), limit: num('Rows (default 15).', 1, 100, true), offset: num('Rows to skip (for the next page).', 0, 100000, true) }),
    startsProcesses: false,
  },
  {
    name: 'hotpath_explain', title: 'Explain a hot function',
    userDescription: 'Callers, callees, own cost, V8\'s story, allocations and advice for one function.',
    description: 'Everything Hotpath knows about one function of a run or profile, found by `file` with `line` (any line in it) or `function` (its name): own, self and total time; its own cost by callee (the dependency, Node and native code it calls, with the line of each call); its hot lines; its callers with their call-site lines; V8\'s story (tier, optimizations, deopts with reasons and the usual fix, what was inlined, why it was not optimized); allocations and event-loop blocking when the run measured them; and the checklist\'s advice that applies; in a run with worker threads, the threads it ran in. Any profile Hotpath opens (`profile`: .cpuprofile, pprof, 0x). Use it on a row of hotpath_hot_lines before changing the code. Read-only.',
    inputSchema: object({ ...source, ...read, file: str('The file, as hotpath_hot_lines shows it (or its end).', { minLength: 1 }), line: num('A line of the function (1-based).', 1, 10_000_000, true), function: str('The function\'s name (when no line is given).') }, ['file']),
    startsProcesses: false,
  },
  {
    name: 'hotpath_baseline', title: 'Record a baseline',
    userDescription: 'K fresh runs under load, saved as a named baseline to verify a fix against.',
    description: 'Records a baseline before changing code: `runs` independent fresh starts of `command` under the same load (default 3), each warmed up and measured (req/s, p99, p50, CPU time per request), saved as `.hotpath/baselines/<name>.json`. Then change the code and call hotpath_verify with the same command and name. Answers within 50 s or with a runId for hotpath_status.',
    inputSchema: object({ ...target, runs: num('Independent runs (default 3).', 2, 20, true), name: str('Baseline name (default: derived from the command).') }, ['command']),
    startsProcesses: true,
  },
  {
    name: 'hotpath_verify', title: 'Verify against the baseline',
    userDescription: 'The same load again, compared with the baseline: faster, slower or no significant change.',
    description: 'Verifies a change against a baseline recorded with hotpath_baseline (same command and name): runs the same load again and answers with the verdict first — FASTER, SLOWER or NO SIGNIFICANT CHANGE — and each metric\'s ratio with its interval (ratio statistics on the log scale, Bonferroni over req/s, p99 and CPU per request, with the drift between sessions). For a small change, or when the baseline was recorded at another commit, hotpath_compare measures both sides interleaved. Answers within 50 s or with a runId.',
    inputSchema: object({ ...target, runs: num('Independent runs (default: as many as the baseline).', 2, 20, true), name: str('Baseline name (default: derived from the command).') }, ['command']),
    startsProcesses: true,
  },
  {
    name: 'hotpath_compare', title: 'Compare two variants interleaved',
    userDescription: 'Two sides (git revision, Node versions, env, node flags) run alternately; verdict with interval.',
    description: 'Compares two variants of the same app, run alternately (A B B A …, fresh processes) until the req/s ratio is known to ±5% or the budget runs out: `base` (a git revision as side A against the working tree, uncommitted changes included), `node` (two Node versions), `envA`/`envB`, `nodeArgsA`/`nodeArgsB`; HTTP load, or `script: true` for wall and CPU time of a command that runs to completion. Answers with the verdict (B against A) and each metric\'s ratio and interval, then the functions whose share changed. Give at least one difference. Answers within 50 s or with a runId.',
    inputSchema: object({
      ...target, base: str('Side A runs this git revision (HEAD, main, a commit) from a temporary worktree; side B the working tree.'),
      node: strings('Node versions or binaries: [A, B], or one for both sides.', { minItems: 1, maxItems: 2 }),
      envA: stringMap('Variables for side A only.'), envB: stringMap('Variables for side B only.'),
      nodeArgsA: strings('Node flags for side A only.'), nodeArgsB: strings('Node flags for side B only.'),
      script: bool('Time a command that runs to completion instead of HTTP load.'),
      pairs: num('Exactly this many pairs (default: adaptive, 5 to 40).', 2, 40, true), budget: num('Seconds the pairs may take (default 120).', 10, 3600),
    }, ['command']),
    startsProcesses: true,
  },
  {
    name: 'hotpath_leak', title: 'Check for a memory leak',
    userDescription: 'Heap after forced full GCs at rungs of load: growing or stable, and the retaining lines.',
    description: 'Checks a server for a leak: after a warm-up, measures the heap after two forced full GCs at rungs (after N, 2N and 4N requests and after an idle period) and fits the growth per request with a 95% interval: GROWING only when the whole interval is above 64 B/request; names the functions and lines whose objects stayed. Answers within 50 s or with a runId.',
    inputSchema: object({ ...target, rung: num('Requests between the first heap measurements (default 2000).', 10, 1_000_000, true), idle: num('Seconds without load before the last measurement (default 5).', 0, 300), name: str('Name the check is stored under (default: derived from the command).') }, ['command']),
    startsProcesses: true,
  },
  {
    name: 'hotpath_startup', title: 'Measure startup',
    userDescription: 'Cold starts: statistics, the module-load tree, a merged profile and advice.',
    description: 'Measures how long `command` takes to start (a CLI until it exits, a server until it listens), in fresh cold starts: mean ± σ, outliers, the module-load tree (which require/import costs what, from which line), a merged profile of several starts, and advice (lazy require, compile cache, node --run). With `node: [A, B]` or `base`, compares the starts of two variants interleaved. Answers within 50 s or with a runId.',
    inputSchema: object({ command, cwd, env, wait, runs: num('Timed starts (default: until the mean is known to ±2%, 10 to 100).', 2, 200, true), node: strings('Two Node versions to compare.', { minItems: 2, maxItems: 2 }), base: str('Compare with this git revision (side A) instead.') }, ['command']),
    startsProcesses: true,
  },
  {
    name: 'hotpath_bench', title: 'Run a benchmark file',
    userDescription: 'A tinybench or node:bench file in fresh processes, with V8\'s view and expert warnings.',
    description: 'Runs a benchmark file (tinybench, or node:bench on Node 26.9+) in `runs` fresh processes (default 5): per task ops/s, mean and p99 time per operation with 95% intervals across processes, V8\'s tier and deopts of each task, and warnings (optimized away, deoptimized while measured, unstable). `compare: [A, B]` runs tasks A and B interleaved and says whether B is faster. Answers within 50 s or with a runId.',
    inputSchema: object({ file: str('The benchmark file (absolute, or relative to `cwd`, which defaults to the workspace root).', { minLength: 1 }), cwd, wait, runs: num('Fresh processes (default 5).', 1, 50, true), tasks: strings('Only these tasks.'), compare: strings('Two task names: is the second faster than the first?', { minItems: 2, maxItems: 2 }), pairs: num('With `compare`: exactly this many interleaved process pairs (default: adaptive, 5 to 20, until the ratio is known to ±3%).', 2, 20, true) }, ['file']),
    startsProcesses: true,
  },
  {
    name: 'hotpath_report', title: 'Report sections of a run or profile',
    userDescription: 'Markdown sections of any profile or run: summary, hotspots, lines, packages, V8, memory, loop, checks.',
    description: 'The report of a run (`runId`, any hotpath tool\'s) or of any profile Hotpath opens (`profile`: .cpuprofile with its worker threads, pprof, 0x), as `hotpath report` gives it, in Markdown sections: `sections` chooses among summary, origin, hotspots, lines, packages, v8, memory, loop, checks, warnings, comparison, verdict, diff, files (default: all the run has). Tables are cut to fit the answer; hotpath_hot_lines pages through lines. Read-only.',
    inputSchema: object({ ...source, ...read, sections: { type: 'array', items: { type: 'string', enum: ['summary', 'origin', 'hotspots', 'lines', 'packages', 'v8', 'memory', 'loop', 'checks', 'warnings', 'comparison', 'verdict', 'diff', 'files', 'routes', 'leak', 'modules', 'advice', 'bench'] }, description: 'Which sections (default all). `origin`: what a production profile is (format, producer, sample types, lines or functions only, labels, paths not found); `memory` holds a heap profile\'s allocation sites.' }, limit: num('Rows of hotspots and lines (default 15).', 1, 100, true) }),
    startsProcesses: false,
  },
];

export function toolNamed(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.name === name);
}
