import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { invalidOption } from '../core/common/errors';
import type { LoadOptionsInput } from '../core/load/options';
import type { AttachSpec } from '../core/target/attach';
import { DEFAULT_SAMPLING_INTERVAL_BYTES } from '../core/memory/allocationSampler';

export const USAGE = `Usage:
  hotpath profile  [load options] [--json] [--out DIR] -- <command...>
  hotpath profile  --script [--json] [--out DIR] [--timeout S] -- <command...>
  hotpath profile  --attach PID|HOST:PORT|ws://URL --port N [load options] [--json]
  hotpath baseline [load options] [--runs N] [--name NAME] [--json] -- <command...>
  hotpath verify   [load options] [--runs N] [--name NAME] [--no-leak] [--json] -- <command...>
  hotpath leak     [load options] [--rung N] [--idle S] [--name NAME] [--json] -- <command...>
  hotpath report   [--json] [--html OUT.html] <file.cpuprofile>
  hotpath report   --html OUT.html --diff <before.cpuprofile> <after.cpuprofile>

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
                            profiler, objects the GC already freed included): sites by bytes/request
  --memory-interval BYTES   mean bytes between allocation samples (default 32768)
  --block-threshold MS      loop turns at least this long are blocking episodes (default 20)
  The event-loop delay, utilization, GC pauses and blocking episodes are always reported.

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

Target options:
  --env K=V (repeatable)    set a variable in the app's environment, e.g. --env NODE_ENV=production
  --cwd DIR                 run the command in DIR (default: the current directory)
  --ready-timeout S         how long the app may take to listen (default 30)

Other options:
  --sampling-interval US    CPU sampling interval in microseconds (default 1000)
  --limit N                 hotspots and lines to show (default 15)
  --no-workers              do not profile worker threads
  --no-v8                   do not collect V8's signals (tier, deopts, inlining) in the profile run
  --no-attribution          report: do not read sources; self time as V8 charged it (no call-site
                            lines, no own cost, inlined code left where V8 put it) — faster on huge profiles
  --html FILE               report: also write the flamegraph as one self-contained HTML file
                            (profile writes one next to the saved profile anyway)
  --diff                    report --html: a differential flamegraph of two profiles (before, after)
  --json                    print one JSON document on stdout (see README)
  --verbose                 log what happens to stderr
  -h, --help                show this help

Exit codes: 0 ok, 1 failed, 2 usage error, 3 verify found a significant regression, 130 interrupted.`;

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
  timeout: { type: 'string' }, html: { type: 'string' }, diff: { type: 'boolean' }, json: { type: 'boolean' }, verbose: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

export type Subcommand = 'profile' | 'baseline' | 'verify' | 'report' | 'leak';

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
  samplingIntervalMicros: number;
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
  json: boolean;
  verbose: boolean;
  help: boolean;
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

export function parseCli(argv: string[]): CliArgs {
  const dashdash = argv.indexOf('--');
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const command = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw invalidOption(`${(err as Error).message.replace(/\. To specify.*$/s, '')}. Run \`hotpath --help\` for the options.`);
  }
  const { values, positionals } = parsed;
  const [sub, ...files] = positionals;
  if (values.help || sub === undefined || sub === 'help') {
    return { help: true } as CliArgs;
  }
  if (!['profile', 'baseline', 'verify', 'report', 'leak'].includes(sub)) throw invalidOption(`Unknown command '${sub}'. Use profile, baseline, verify, leak or report.`);
  const subcommand = sub as Subcommand;
  if (values.html !== undefined && subcommand !== 'report') throw invalidOption('--html works with `hotpath report` (`hotpath profile` writes the HTML next to the profile).');
  if (values.html !== undefined && values.html.trim() === '') throw invalidOption('--html needs the path of the HTML file to write.');
  if (values.diff && (subcommand !== 'report' || values.html === undefined)) throw invalidOption('--diff works with `hotpath report --html OUT.html --diff BEFORE.cpuprofile AFTER.cpuprofile`.');
  if (values.diff && files.length !== 2) throw invalidOption('`hotpath report --diff` takes two .cpuprofile files: the one before and the one after the change.');
  if (subcommand === 'report' && !values.diff && files.length !== 1) throw invalidOption('`hotpath report` takes exactly one .cpuprofile file.');
  if (subcommand !== 'report' && files.length > 0) throw invalidOption(`Unexpected '${files[0]}': put the app command after \`--\`, e.g. \`hotpath ${subcommand} -- node app.js\`.`);
  const attach = values.attach !== undefined ? parseAttach(values.attach, positiveInt('--inspect-port', values['inspect-port'])) : undefined;
  if (attach && (subcommand !== 'profile' || values.script)) throw invalidOption('--attach works with `hotpath profile` (HTTP load) only.');
  if (attach && command.length > 0) throw invalidOption('--attach profiles a running process: leave out the command after `--`.');
  if (subcommand !== 'report' && command.length === 0 && !attach) throw invalidOption(`\`hotpath ${subcommand}\` needs the command that starts your app after \`--\`, e.g. \`hotpath ${subcommand} -- node server.js\`.`);
  if (values.script && subcommand !== 'profile') throw invalidOption('--script works with `hotpath profile` only.');
  if ((values.memory || values['memory-interval'] !== undefined) && (subcommand !== 'profile' || values.script)) throw invalidOption('--memory works with `hotpath profile` under load (`hotpath leak` checks for leaks).');
  if (values['block-threshold'] !== undefined && (subcommand !== 'profile' || values.script)) throw invalidOption('--block-threshold works with `hotpath profile` under load.');
  if ((values.rung !== undefined || values.idle !== undefined) && !(subcommand === 'leak' || (subcommand === 'baseline' && values.leak) || subcommand === 'verify')) throw invalidOption('--rung and --idle set the leak check: use them with `hotpath leak`, `hotpath baseline --leak` or `hotpath verify`.');
  if (values.leak && subcommand !== 'baseline') throw invalidOption(subcommand === 'leak' ? '`hotpath leak` always checks for leaks; --leak is for `hotpath baseline`.' : '--leak works with `hotpath baseline` (verify repeats the check a baseline recorded; --no-leak skips it).');
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
    samplingIntervalMicros: positiveInt('--sampling-interval', values['sampling-interval'], 10) ?? 1000,
    limit: positiveInt('--limit', values.limit) ?? 15,
    workers: !values['no-workers'],
    v8: !values['no-v8'],
    attribution: !values['no-attribution'],
    runs: positiveInt('--runs', values.runs, 2),
    name: values.name,
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
    json: Boolean(values.json),
    verbose: Boolean(values.verbose),
    help: false,
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
