import * as path from 'node:path';
import { CancellationTokenSource } from '../core/common/cancellation';
import { errorMessage, ErrorCode, HotpathError, isHotpathError } from '../core/common/errors';
import type { Logger } from '../core/common/logger';
import { baselineNameFromCommand } from '../core/stats/baselineStore';
import { type CliArgs, parseCli, USAGE } from './args';
import { EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './exitCodes';
import type { AnyResult } from './jsonOutput';
import { ProgressView } from './progressBar';
import { displayPath } from './format';
import { addBlockingLane } from '../core/loop/flameLane';
import type { ProfileResult } from '../core/workflow/profileWithLoad';
import { checksBeforeRun, type BeforeRunInput } from '../core/workflow/preflight';
import { logText, terminalJson, terminalText } from '../shared/text/safe';
import { runEmergencyStops } from '../core/common/emergency';
import type { LoadOptionsInput } from '../core/load/options';

/**
 * chrome-remote-interface (the inspector client) parses the inspector's URL with url.parse(), which
 * Node 26 deprecates with a warning on stderr at every connection (DEP0169). The URL is Hotpath's own,
 * from a loopback inspector it checked: that one warning is not the user's business. Others still show.
 */
function quietOwnDeprecation(): void {
  const emit = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const code = typeof rest[0] === 'object' && rest[0] !== null ? (rest[0] as { code?: string }).code : rest[1];
    if (code === 'DEP0169') return;
    return (emit as (...a: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
}

/** Longest a graceful stop (first Ctrl-C) may take before Hotpath stops everything at once. */
const GRACEFUL_STOP_MS = 15_000;

function beforeRunInput(args: CliArgs): BeforeRunInput {
  const mode = args.attach ? 'attach' : args.script ? 'script' : 'launch';
  return { mode, command: args.command, env: { ...process.env, ...args.env }, samplingIntervalMicros: args.samplingIntervalMicros };
}

function stderrLogger(verbose: boolean): Logger {
  // One record per line, escape sequences visible: log lines carry app output and profile text.
  const write = (level: string) => (m: string) => { if (verbose) process.stderr.write(`[${level}] ${logText(m)}\n`); };
  return { trace: write('trace'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** The load options with the routes of --load-file (after any --request). */
async function loadWithFile(args: CliArgs): Promise<LoadOptionsInput> {
  if (!args.loadFile) return args.load;
  const { readLoadFile } = require('../core/load/loadFile') as typeof import('../core/load/loadFile');
  const routes = await readLoadFile(args.loadFile);
  return { ...args.load, routes: [...(args.load.routes ?? []), ...routes] };
}

async function run(args: CliArgs, cts: CancellationTokenSource, progress: ProgressView): Promise<AnyResult> {
  const deps = { token: cts.token, logger: stderrLogger(args.verbose), onProgress: (p: Parameters<ProgressView['update']>[0]) => progress.update(p) };
  args.load = await loadWithFile(args);
  const memory = { memoryIntervalBytes: args.memoryIntervalBytes, blockThresholdMs: args.blockThresholdMs };
  const leakOptions = args.rungRequests !== undefined || args.idleSeconds !== undefined ? { rungRequests: args.rungRequests, idleSeconds: args.idleSeconds } : undefined;
  const name = args.name ?? baselineNameFromCommand(args.command);
  const target = { command: args.command, cwd: args.cwd, env: args.env, port: args.port, readyTimeoutMs: args.readyTimeoutMs };
  switch (args.subcommand) {
    case 'report': {
      const { reportProfile } = require('../core/workflow/report') as typeof import('../core/workflow/report');
      // With --diff the text report is the newer profile's; the HTML compares both.
      return reportProfile(path.resolve(args.files[args.diff ? 1 : 0]), {
        limit: args.limit, attribution: args.attribution, diffWith: args.diff ? args.files[0] : undefined, token: cts.token, cwd: args.cwd, pprofOut: args.pprof.out || undefined,
        read: { sampleType: args.pprof.sampleType, labels: args.pprof.labels, pathMap: { roots: [args.cwd], mappings: args.pprof.mappings } },
      });
    }
    case 'profile':
      if (args.attach) {
        const { profileAttached } = require('../core/workflow/profileAttached') as typeof import('../core/workflow/profileAttached');
        return profileAttached({ attach: args.attach, load: args.load, port: args.port, cwd: args.cwd, samplingIntervalMicros: args.samplingIntervalMicros, outDir: args.out, name: args.name ?? 'attached', workers: args.workers, limit: args.limit, v8: args.v8, ...memory }, deps);
      }
      if (args.script) {
        const { profileScript } = require('../core/workflow/profileScript') as typeof import('../core/workflow/profileScript');
        return profileScript({ command: args.command, cwd: args.cwd, env: args.env, samplingIntervalMicros: args.samplingIntervalMicros, outDir: args.out, name, workers: args.workers, limit: args.limit, timeoutMs: args.timeoutMs, v8: args.v8 }, deps);
      }
      const { profileWithLoad } = require('../core/workflow/profileWithLoad') as typeof import('../core/workflow/profileWithLoad');
      return profileWithLoad({ ...target, load: args.load, samplingIntervalMicros: args.samplingIntervalMicros, outDir: args.out, name, workers: args.workers, limit: args.limit, v8: args.v8, ...memory }, deps);
    case 'baseline': {
      const { establishBaseline } = require('../core/workflow/baseline') as typeof import('../core/workflow/baseline');
      return establishBaseline({ ...target, load: args.load, runs: args.runs ?? 3, name, ...(args.leak ? { leak: leakOptions ?? true } : {}) }, deps);
    }
    case 'verify': {
      const { verifyAgainstBaseline } = require('../core/workflow/baseline') as typeof import('../core/workflow/baseline');
      return verifyAgainstBaseline({ ...target, load: args.load, runs: args.runs, name, alpha: args.alpha, ...(args.leak === false ? { leak: false } : leakOptions ? { leak: leakOptions } : {}) }, deps);
    }
    case 'leak': {
      const { checkForLeaks } = require('../core/workflow/leakCheck') as typeof import('../core/workflow/leakCheck');
      return checkForLeaks({ ...target, load: args.load, name, outDir: args.out, limit: args.limit, ...(leakOptions ?? {}) }, deps);
    }
    case 'compare': {
      const { compareVariants } = require('../core/workflow/compare') as typeof import('../core/workflow/compare');
      return compareVariants({
        ...target, sides: args.compare!.sides, mode: args.script ? 'script' : 'http', load: args.load, timeoutMs: args.timeoutMs,
        interleave: args.compare!.interleave, prepare: args.compare!.prepare, profile: args.compare!.profile, allowSameSides: args.compare!.allowSameSides,
        samplingIntervalMicros: args.samplingIntervalMicros, outDir: args.out, name, v8: args.v8,
      }, deps);
    }
    case 'startup': {
      const s = args.startup!;
      if (s.variants) {
        const { pairs, ...variants } = s.variants;
        const { runStartupVariants } = require('../core/workflow/startupCompare') as typeof import('../core/workflow/startupCompare');
        const interleave = { ...(pairs ? { fixedPairs: pairs } : {}), ...(args.alpha !== undefined ? { alpha: args.alpha } : {}) };
        return runStartupVariants({ command: args.command, cwd: args.cwd, env: args.env, ...variants, options: { until: s.until, timeoutMs: args.timeoutMs, ...(Object.keys(interleave).length ? { interleave } : {}) } }, deps);
      }
      const { measureStartup } = require('../core/workflow/startup') as typeof import('../core/workflow/startup');
      return measureStartup({
        command: args.command, cwd: args.cwd, env: args.env, until: s.until, runs: args.runs, warmup: s.warmup, profileRuns: s.profileRuns,
        samplingIntervalMicros: args.samplingIntervalMicros, modules: s.modules, tryCompileCache: s.compileCache, timeoutMs: args.timeoutMs,
        outDir: args.out, name, limit: args.limit,
      }, deps);
    }
    case 'bench': {
      const b = args.bench!;
      const { runBench } = require('../core/workflow/bench') as typeof import('../core/workflow/bench');
      // The file runs on the node that runs Hotpath (`node $(which hotpath) bench …` picks another).
      return runBench({ file: args.files[0], cwd: args.cwd, node: process.execPath, env: args.env, runs: args.runs, v8: args.v8, timeoutMs: args.timeoutMs, ...b }, deps);
    }
  }
}

/**
 * The flamegraph HTML: `report --html` writes where asked (failing the command if it cannot);
 * `profile` writes one next to the saved profile (a failure there is only a warning).
 */
async function writeFlamegraph(args: CliArgs, result: AnyResult): Promise<string | null> {
  const { htmlPathFor, writeCompareReport, writeDiffReport, writeFlameReport, writeThreadsFlameReport } = require('./htmlReport') as typeof import('./htmlReport');
  if (result.kind === 'report') {
    if (!args.html) return null;
    // The text report already built the (newer) profile's model: draw from it, don't parse again.
    // --no-attribution: frames as V8 charged them, on both sides of a diff.
    const attribution = args.attribution ? result.attribution : undefined;
    if (!args.diff && result.profiles && result.profiles.length > 1) return writeThreadsFlameReport(result.profiles, args.html, { attribution: args.attribution });
    return args.diff
      ? writeDiffReport({ path: result.diff?.beforePath ?? args.files[0], model: result.diff?.before }, result.model, args.html, attribution)
      : writeFlameReport(result.model, args.html, result.v8Functions, undefined, attribution);
  }
  if (result.kind === 'compare') {
    if (!result.profiles) return null;
    try {
      return await writeCompareReport(result, htmlPathFor(result.profiles.b.path).replace(/-b\.html$/, '-compare.html'));
    } catch (err) {
      process.stderr.write(`hotpath: could not write the differential flamegraph HTML: ${errorMessage(err)}\n`);
      return null;
    }
  }
  if ((result.kind === 'profile' || result.kind === 'script' || result.kind === 'startup') && result.profilePath && result.model) {
    try {
      if (result.kind === 'profile') await writeAllocationFlamegraph(result);
      if ((result.kind === 'profile' || result.kind === 'script') && result.profiles.length > 1) return await writeThreadsFlameReport(result.profiles, htmlPathFor(result.profilePath));
      const blocking = result.kind === 'profile' ? result.memoryExtras?.blocking : undefined;
      return await writeFlameReport(result.model, htmlPathFor(result.profilePath), result.v8Functions, (payload) => addBlockingLane(payload, blocking), result.attribution);
    } catch (err) {
      process.stderr.write(`hotpath: could not write the flamegraph HTML: ${terminalText(errorMessage(err), true)}\n`);
    }
  }
  return null;
}

/** `<profile>.heapprofile.html` next to the heap profile, when --memory sampled allocations. */
async function writeAllocationFlamegraph(result: ProfileResult): Promise<void> {
  const model = result.memoryExtras?.allocationModel;
  const file = result.memory?.allocations?.heapProfilePath;
  if (!model || !file) return;
  const { allocationFlamePayload } = require('../core/memory/flame') as typeof import('../core/memory/flame');
  const payload = allocationFlamePayload(model, { title: `${path.basename(file)} (allocations)`, requests: result.load.requests.total, attribution: result.memoryExtras?.allocationAttribution });
  const { writePayloadReport } = require('./htmlReport') as typeof import('./htmlReport');
  result.memory!.allocations!.flamegraphPath = await writePayloadReport(payload, `${file}.html`);
}

function render(result: AnyResult, args: CliArgs, flamegraphPath: string | null): string {
  const cwd = args.cwd;
  const flameLine = flamegraphPath ? `Flamegraph: ${displayPath(flamegraphPath, cwd)} (open it in a browser)\n` : '';
  const { renderBaseline, renderProfile, renderReport, renderVerify } = require('./humanOutput') as typeof import('./humanOutput');
  switch (result.kind) {
    case 'profile': case 'script': return renderProfile(result, cwd) + flameLine;
    case 'report': {
      const { buildReport, renderTerminal } = require('../core/report') as typeof import('../core/report');
      return renderTerminal(buildReport(result, { cwd, flamegraphPath }), { cwd });
    }
    case 'baseline': return renderBaseline(result, cwd);
    case 'verify': return renderVerify(result, result.interleavedCompare ? (require('./compareHint') as typeof import('./compareHint')).compareCommandFor(args.argv, result.interleavedCompare.base) : undefined);
    case 'compare': return (require('./compareOutput') as typeof import('./compareOutput')).renderCompare(result, cwd, { diffHtmlPath: flamegraphPath, limit: args.limit });
    case 'startup': return (require('./startupOutput') as typeof import('./startupOutput')).renderStartup(result, cwd) + flameLine;
    case 'bench': return (require('./benchOutput') as typeof import('./benchOutput')).renderBench(result, cwd);
    case 'startup-compare': case 'startup-bisect': return (require('./startupOutput') as typeof import('./startupOutput')).renderStartupVariants(result);
    case 'leak': return (require('./memoryOutput') as typeof import('./memoryOutput')).renderLeak(result, cwd);
  }
}

export async function main(argv: string[]): Promise<number> {
  quietOwnDeprecation();
  // `hotpath mcp`: the MCP server over stdio (its own module: stdout then carries JSON-RPC only).
  if (argv[0] === 'mcp') return (await import('../mcp/command')).mcpCommand(argv.slice(1));
  let args: CliArgs;
  try {
    args = parseCli(argv);
  } catch (err) {
    process.stderr.write(`hotpath: ${terminalText(errorMessage(err), true)}\n`);
    return EXIT_USAGE;
  }
  if (args.help) { process.stdout.write(USAGE + '\n'); return EXIT_OK; }

  const cts = new CancellationTokenSource();
  let interrupts = 0;
  // After SIGHUP the terminal may be gone: a failed write must not become an uncaught error.
  process.stderr.on('error', () => undefined);
  const say = (text: string) => { try { process.stderr.write(text); } catch { /* no terminal */ } };
  const stopNow = () => {
    // No more waiting: kill the app's process group, switch V8's tracing off where we attached,
    // remove our temporary files — then exit.
    void runEmergencyStops(1000).finally(() => process.exit(EXIT_CANCELLED));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) {
      say(`\nhotpath: ${signal} again, stopping the app now.\n`);
      stopNow();
      return;
    }
    say(`\nhotpath: ${signal} received, stopping the app… (again to stop it at once)\n`);
    cts.cancel();
    // A graceful stop that hangs (an app ignoring SIGTERM is killed after 2 s, so this is a backstop).
    setTimeout(stopNow, GRACEFUL_STOP_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  const progress = new ProgressView(process.stderr, !args.json || Boolean(process.stderr.isTTY));
  // The production-parity checklist, before the run (it is printed again with the result, after it).
  if (!args.json && args.subcommand === 'profile') process.stderr.write((require('./humanOutput') as typeof import('./humanOutput')).renderChecks('Checks before the run', checksBeforeRun(beforeRunInput(args))));
  try {
    const result = await run(args, cts, progress);
    const flamegraphPath = await writeFlamegraph(args, result);
    const pprofWritten = args.pprof.out !== undefined && result.kind !== 'report'
      ? await (require('./pprofExport') as typeof import('./pprofExport')).exportRecordedProfiles(result, args.pprof.out || undefined, args.cwd) : [];
    progress.stop();
    // Only the output asked for is built, each one's renderers loaded when used (CLI start: README's Benchmarks).
    const json = () => {
      const { reportExtrasJson } = require('./pprofJson') as typeof import('./pprofJson');
      if (result.kind === 'compare') return { ...(require('./compareOutput') as typeof import('./compareOutput')).compareJson(result, flamegraphPath), ...reportExtrasJson(result, pprofWritten) };
      const { toJson } = require('./jsonOutput') as typeof import('./jsonOutput');
      return { ...(flamegraphPath ? { ...toJson(result), flamegraphPath } : toJson(result)), ...reportExtrasJson(result, pprofWritten) };
    };
    const text = () => {
      const { buildReport, renderMarkdown, renderSectionsTerminal } = require('../core/report') as typeof import('../core/report');
      if (args.md) return renderMarkdown(buildReport(result, { cwd: args.cwd, flamegraphPath, limit: args.limit, pprofWritten }), { cwd: args.cwd });
      // What --pprof wrote is the model's last section (a report's own export is in its model already).
      const written = pprofWritten.length ? (require('../core/report/production') as typeof import('../core/report/production')).pprofWrittenSection(pprofWritten) : undefined;
      return render(result, args, flamegraphPath) + (written ? renderSectionsTerminal([written], { cwd: args.cwd }) : '');
    };
    // Every piece of profile text was made safe where it was placed; this pass is the terminal's last line of defence.
    process.stdout.write(args.json ? terminalJson(json()) + '\n' : terminalText(text(), true));
    // The CI gate (exit 0/3/4 by the policy), --md FILE, and under GitHub Actions the job summary,
    // outputs and annotations (workflow commands: after the report; on stderr beside a JSON document).
    const { ciOutputs } = require('./ciOutput') as typeof import('./ciOutput');
    const compareCommand = result.kind === 'verify' && result.interleavedCompare ? (require('./compareHint') as typeof import('./compareHint')).compareCommandFor(args.argv, result.interleavedCompare.base) : undefined;
    const ci = await ciOutputs(result, args, { flamegraphPath, compareCommand });
    if (ci.commands.length) (args.json ? process.stderr : process.stdout).write(ci.commands.map((c) => `${c}\n`).join(''));
    // A leak check the app did not survive failed, whatever else the run found; what it measured was printed above.
    const leakCrash = (result.kind === 'leak' || result.kind === 'baseline' || result.kind === 'verify') && result.leak?.crash;
    if (leakCrash && args.json) process.stderr.write(`hotpath: ${terminalText(leakCrash.message, true)}\n`);
    return leakCrash ? EXIT_FAILED : ci.exitCode ?? EXIT_OK;
  } catch (err) {
    progress.stop();
    const error = isHotpathError(err) ? err : new HotpathError(ErrorCode.LoadFailed, `Unexpected error: ${err instanceof Error ? err.stack : String(err)}`);
    if (args.json) process.stdout.write(terminalJson((require('./jsonOutput') as typeof import('./jsonOutput')).errorJson(error)) + '\n');
    process.stderr.write(`hotpath: ${terminalText(error.message, true)}\n`);
    if (isHotpathError(err, ErrorCode.Cancelled)) return EXIT_CANCELLED;
    return isHotpathError(err, ErrorCode.InvalidOption) ? EXIT_USAGE : EXIT_FAILED;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    cts.dispose();
  }
}

// Exit explicitly: autocannon and the inspector client may keep sockets referenced for a moment.
main(process.argv.slice(2)).then((code) => process.exit(code), (err) => { process.stderr.write(`hotpath: ${terminalText(errorMessage(err), true)}\n`); process.exit(EXIT_FAILED); });
