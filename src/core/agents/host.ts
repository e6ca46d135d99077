/**
 * The tools' behaviour, once for every surface: arguments validated by one validator, commands run as
 * argv inside the workspace's roots, long runs as jobs that answer within 50 s, progress while a call
 * waits, cancellation that stops the app, answers sized for a model. The MCP server and VS Code's
 * language-model tools are thin adapters over this (src/mcp, src/vscode/lm).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, delay } from '../common/cancellation';
import { errorMessage, ErrorCode, HotpathError, isHotpathError } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import { buildReport, type RunResultAny } from '../report';
import { code, type Inline, line, type Report, section, type SectionId, text } from '../report/model';
import type { PathMapping } from '../profile/pathMap';
import type { WorkflowDeps } from '../workflow/profileWithLoad';
import type { WorkflowProgress } from '../workflow/progress';
import { type AnalyzedProfile, analyzedRun, ProfileCache, type ReadOptions } from './analysis';
import { type Answer, answerOf, messageAnswer } from './answer';
import { explainReport } from './explain';
import { hotLinesReport } from './hotLines';
import { type Job, type JobProgress, JobRegistry } from './jobs';
import { type AgentRun, agentRunOf, describeRun, type RunArguments } from './runs';
import { validateArguments } from './schema';
import { DEFAULT_WAIT_SECONDS, type ToolDefinition, type ToolName, toolNamed } from './tools';

/** What differs between the MCP server and VS Code: where commands may run and how a run is executed. */
export interface AgentEnvironment {
  /** Directories commands may run in (absolute); the first is the default `cwd`. */
  roots(token: CancellationToken): Promise<string[]>;
  /** Why no command may run at all (VS Code: an untrusted workspace), or undefined. */
  runBlocked?(): string | undefined;
  /** Runs a request: the core workflows (MCP), or the editor's run controller so the editor shows it (VS Code). */
  run(request: AgentRun, deps: WorkflowDeps): Promise<RunResultAny>;
  /** Where another machine's paths are in the workspace unless the call says (VS Code: `hotpath.pathMappings`). */
  pathMappings?(): PathMapping[];
  logger?: Logger;
}

export interface CallProgress {
  /** Increases with every report. */
  progress: number;
  total: number;
  message: string;
}

export interface CallContext {
  token: CancellationToken;
  /** Long work reports here at least every few seconds while the call waits. */
  onProgress?: (p: CallProgress) => void;
  /** Characters the answer may take (default 8000). */
  budget?: number;
}

/** How often a waiting call repeats the progress when the run itself says nothing new. */
const HEARTBEAT_MS = 4000;

interface ReadArguments {
  runId?: string; profile?: string; file?: string; limit?: number; offset?: number; line?: number; function?: string; sections?: SectionId[];
  sampleType?: string; labels?: string[]; mapPath?: Record<string, string>;
}

export class ToolHost {
  readonly jobs = new JobRegistry();
  private readonly profiles = new ProfileCache();
  /** Where each job's command ran (answers show paths relative to it). */
  private readonly jobCwd = new Map<string, string>();
  private readonly logger: Logger;

  constructor(private readonly env: AgentEnvironment) {
    this.logger = env.logger ?? silentLogger;
  }

  /** Answers a tool call; failures are answers too (`isError`), with what to do next. */
  async call(name: string, args: unknown, ctx: CallContext): Promise<Answer> {
    const def = toolNamed(name);
    if (!def) return messageAnswer(`Unknown tool "${name}".`, { error: 'UNKNOWN_TOOL' }, true);
    const valid = validateArguments<RunArguments & ReadArguments & { runId?: string; wait?: number; cancel?: boolean }>(def.inputSchema, args);
    if (!valid.ok) return messageAnswer(`${name}: ${valid.message}`, { error: ErrorCode.InvalidOption, message: valid.message }, true);
    const a = valid.value;
    try {
      if (def.startsProcesses) return await this.startRun(def, a, ctx);
      switch (def.name) {
        case 'hotpath_status': return await this.status(a.runId!, a.wait, Boolean(a.cancel), ctx);
        case 'hotpath_hot_lines': return await this.hotLines(a, ctx);
        case 'hotpath_explain': return await this.explain(a, ctx);
        case 'hotpath_report': return await this.report(a, ctx);
        default: throw new Error(`no handler for ${def.name}`);
      }
    } catch (err) {
      const e = isHotpathError(err) ? err : new HotpathError(ErrorCode.LoadFailed, errorMessage(err));
      if (!isHotpathError(err)) this.logger.error(`${name}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
      return messageAnswer(`${name} failed: ${e.message}`, { error: e.code, message: e.message }, true);
    }
  }

  /** The exact command a run tool would start, for the confirmation a person answers (VS Code). Throws on bad arguments. */
  async describe(name: ToolName, args: unknown, token: CancellationToken): Promise<string> {
    const def = toolNamed(name)!;
    const valid = validateArguments<RunArguments>(def.inputSchema, args);
    if (!valid.ok) throw new HotpathError(ErrorCode.InvalidOption, `${name}: ${valid.message}`);
    return describeRun(agentRunOf(name, valid.value, await this.cwdOf(valid.value.cwd, token)));
  }

  /** Stops every run (its app and load) and waits until they have stopped: the server is exiting or its client is gone. */
  async stopAll(): Promise<void> {
    await this.jobs.stopAll();
  }

  private async cwdOf(asked: string | undefined, token: CancellationToken): Promise<string> {
    const roots = await this.env.roots(token);
    if (!roots.length) throw new HotpathError(ErrorCode.InvalidOption, 'No workspace folder is open: open the project folder, then ask again.');
    const wanted = path.resolve(roots[0], asked ?? '.');
    let real: string;
    try {
      real = fs.realpathSync(wanted);
      if (!fs.statSync(real).isDirectory()) throw new Error('not a directory');
    } catch {
      throw new HotpathError(ErrorCode.InvalidOption, `cwd "${asked}" is not a directory (resolved to ${wanted}). Give a folder inside ${roots.join(' or ')}.`);
    }
    const inside = roots.some((r) => {
      const rel = path.relative(safeReal(r), real);
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    });
    if (!inside) throw new HotpathError(ErrorCode.InvalidOption, `cwd ${real} is outside the workspace (${roots.join(', ')}): Hotpath runs commands only inside it.`);
    return real;
  }

  private async startRun(def: ToolDefinition, a: RunArguments & { wait?: number }, ctx: CallContext): Promise<Answer> {
    const blocked = this.env.runBlocked?.();
    if (blocked) throw new HotpathError(ErrorCode.InvalidOption, blocked);
    const cwd = await this.cwdOf(a.cwd, ctx.token);
    const run = agentRunOf(def.name, a, cwd);
    if (run.bench) {
      const roots = (await this.env.roots(ctx.token)).map(safeReal);
      const file = safeReal(run.bench.file);
      if (!roots.some((r) => !path.relative(r, file).startsWith('..'))) throw new HotpathError(ErrorCode.InvalidOption, `The benchmark file ${run.bench.file} is outside the workspace (${roots.join(', ')}).`);
    }
    this.logger.info(`${def.name}: ${describeRun(run).replace(/\n/g, ' ')}`);
    const job = this.jobs.start(def.name, describeRun(run), (token, onProgress) => this.env.run(run, { token, logger: this.logger, onProgress: (p: WorkflowProgress) => onProgress(p) }));
    this.jobCwd.set(job.id, cwd);
    return this.waitAndAnswer(job, a.wait ?? DEFAULT_WAIT_SECONDS, ctx);
  }

  private async status(runId: string, wait: number | undefined, cancel: boolean, ctx: CallContext): Promise<Answer> {
    const job = this.jobs.require(runId);
    if (cancel && job.status === 'running') {
      job.cancel();
      await job.finished;
    }
    return this.waitAndAnswer(job, wait ?? DEFAULT_WAIT_SECONDS, ctx);
  }

  /** Waits for the job up to `seconds`, reporting progress; a cancelled call stops the run. */
  private async waitAndAnswer(job: Job, seconds: number, ctx: CallContext): Promise<Answer> {
    if (job.status === 'running') {
      let last = 0;
      const send = (p: JobProgress) => {
        last = Math.max(last + 0.01, Math.min(99, Math.round((p.fraction ?? 0) * 1000) / 10));
        ctx.onProgress?.({ progress: Math.round(last * 100) / 100, total: 100, message: `${job.id} ${p.stage}: ${p.message} (${job.elapsedSeconds} s)` });
      };
      send(job.progress);
      const sub = job.onProgress(send);
      const beat = setInterval(() => send(job.progress), HEARTBEAT_MS);
      const stop = ctx.token.onCancellationRequested(() => job.cancel());
      try {
        await Promise.race([job.finished, delay(seconds * 1000, ctx.token).catch(() => undefined)]);
        if (ctx.token.isCancellationRequested) await job.finished;
      } finally {
        clearInterval(beat);
        sub.dispose();
        stop.dispose();
      }
    }
    return this.answerFor(job, ctx);
  }

  private answerFor(job: Job, ctx: CallContext): Answer {
    const extra = { runId: job.id, status: job.status, tool: job.tool };
    switch (job.status) {
      case 'running': {
        const p = job.progress;
        const pct = p.fraction !== undefined ? `, ${Math.round(p.fraction * 100)}%` : '';
        return messageAnswer(
          `${job.tool} ${job.id} is running: ${p.stage} — ${p.message} (${job.elapsedSeconds} s${pct}).\n\nCall hotpath_status {"runId": "${job.id}"} to wait for it (up to 50 s a call), or with "cancel": true to stop it.\n\n${'```'}text\n${job.description}\n${'```'}`,
          { ...extra, stage: p.stage, message: p.message, progress: p.fraction ?? null, elapsedSeconds: job.elapsedSeconds },
        );
      }
      case 'cancelled':
        return messageAnswer(`${job.tool} ${job.id} was cancelled after ${job.elapsedSeconds} s; its app and load were stopped.`, { ...extra, error: ErrorCode.Cancelled }, true);
      case 'failed':
        return messageAnswer(`${job.tool} ${job.id} failed: ${job.error!.message}`, { ...extra, error: job.error!.code, message: job.error!.message }, true);
      case 'done': {
        const cwd = this.jobCwd.get(job.id) ?? process.cwd();
        const report = resultReport(job.result!, job.id, cwd);
        return answerOf(report, { cwd, budget: ctx.budget, extra, moreHint: (b) => moreHint(job.id, b.title) });
      }
    }
  }

  /** A run's or a profile file's analysis, read as `hotpath report` and VS Code read it. */
  private async analysisOf(a: ReadArguments, token: CancellationToken): Promise<{ analysis: AnalyzedProfile; cwd: string; source: string }> {
    const { cwd, file, read } = await this.sourceOf(a, token);
    if (file !== undefined) return { analysis: await this.profiles.load(file, read, token), cwd, source: JSON.stringify({ profile: a.profile }) };
    const job = this.jobs.require(a.runId!);
    return { analysis: await analyzedRun(job.result!, this.profiles, token), cwd, source: JSON.stringify({ runId: job.id }) };
  }

  /** The run or profile a read tool names, and how to read a profile file (its pprof options, the workspace's path mappings). */
  private async sourceOf(a: ReadArguments, token: CancellationToken): Promise<{ cwd: string; file?: string; read: ReadOptions }> {
    if ((a.runId === undefined) === (a.profile === undefined)) {
      throw new HotpathError(ErrorCode.InvalidOption, 'Give either `runId` (a run of this session) or `profile` (a .cpuprofile, pprof file or 0x folder), not both and not neither.');
    }
    if (a.runId !== undefined) {
      const given = (['sampleType', 'labels', 'mapPath'] as const).filter((k) => a[k] !== undefined);
      if (given.length) throw new HotpathError(ErrorCode.InvalidOption, `${given.map((k) => `\`${k}\``).join(', ')} read a production profile file: give it as \`profile\` (a run's own profile is read as it was recorded).`);
      const job = this.jobs.require(a.runId);
      if (job.status !== 'done') throw new HotpathError(ErrorCode.InvalidOption, `${job.id} is ${job.status === 'running' ? `still running (${job.progress.message}): wait with hotpath_status {"runId": "${job.id}"}` : `${job.status}: ${job.error?.message ?? ''}`}.`);
      return { cwd: this.jobCwd.get(job.id) ?? process.cwd(), read: {} };
    }
    const roots = await this.env.roots(token);
    const cwd = roots[0] ?? process.cwd();
    const labels = (a.labels ?? []).map((l) => {
      const eq = l.indexOf('=');
      if (eq <= 0) throw new HotpathError(ErrorCode.InvalidOption, `\`labels\`: "${l.slice(0, 80)}" is not "KEY=VALUE", e.g. "trace endpoint=GET /orders".`);
      return { key: l.slice(0, eq), value: l.slice(eq + 1) };
    });
    const given = Object.entries(a.mapPath ?? {}).map(([from, to]) => {
      if (!from || !to) throw new HotpathError(ErrorCode.InvalidOption, '`mapPath`: each entry maps a path prefix of the profile to a folder of the workspace, e.g. {"/usr/src/app": "."}.');
      return { from, to: path.resolve(cwd, to) };
    });
    const read: ReadOptions = {
      ...(a.sampleType !== undefined ? { sampleType: a.sampleType } : {}),
      ...(labels.length ? { labels } : {}),
      pathMap: { roots: roots.length ? roots : [cwd], mappings: [...given, ...(this.env.pathMappings?.() ?? [])] },
    };
    return { cwd, file: path.resolve(cwd, a.profile!), read };
  }

  private async hotLines(a: ReadArguments, ctx: CallContext): Promise<Answer> {
    const { analysis, cwd, source } = await this.analysisOf(a, ctx.token);
    const roots = await this.env.roots(ctx.token);
    const offset = a.offset ?? 0;
    const report = hotLinesReport(analysis, { file: a.file, limit: a.limit ?? 15, offset, roots, source });
    return answerOf(report, { cwd, budget: ctx.budget, extra: { source: JSON.parse(source), offset }, moreHint: (_b, shown) => code(`offset: ${offset + shown}`) });
  }

  private async explain(a: ReadArguments, ctx: CallContext): Promise<Answer> {
    if (a.line === undefined && a.function === undefined) throw new HotpathError(ErrorCode.InvalidOption, 'hotpath_explain needs `line` (any line of the function) or `function` (its name) with `file`.');
    const { analysis, cwd, source } = await this.analysisOf(a, ctx.token);
    const roots = await this.env.roots(ctx.token);
    const report = explainReport(analysis, { file: a.file!, line: a.line, function: a.function, roots, cwd });
    return answerOf(report, { cwd, budget: ctx.budget, extra: { source: JSON.parse(source) } });
  }

  /** A run's report as its tool answered it, or a profile's as `hotpath report` prints it (every section, or those asked for). */
  private async report(a: ReadArguments, ctx: CallContext): Promise<Answer> {
    const { cwd, file, read } = await this.sourceOf(a, ctx.token);
    const limit = a.limit ?? 15;
    if (file === undefined) {
      const job = this.jobs.require(a.runId!);
      return answerOf(buildReport(limited(job.result!, limit), { cwd }), { cwd, budget: ctx.budget, sections: a.sections, extra: { runId: job.id }, moreHint: (b) => moreHint(job.id, b.title) });
    }
    const r = await this.profiles.report(file, read, ctx.token);
    return answerOf(buildReport(limited(r, limit), { cwd }), { cwd, budget: ctx.budget, sections: a.sections, extra: { profile: r.profilePath } });
  }
}

function safeReal(p: string): string {
  try { return fs.realpathSync(p); } catch { return path.resolve(p); }
}

/** A run's rows cut to `limit` (the report tool's page). */
function limited(r: RunResultAny, limit: number): RunResultAny {
  if (!('hotspots' in r)) return r;
  const allocations = r.kind === 'report' && r.allocations ? { allocations: { ...r.allocations, sites: r.allocations.sites.slice(0, limit) } } : {};
  return { ...r, hotspots: r.hotspots.slice(0, limit), lines: r.lines.slice(0, limit), ...allocations } as RunResultAny;
}

/** Where the rest of a cut table is. */
function moreHint(runId: string, title: Inline | undefined): Inline | undefined {
  const t = JSON.stringify(title ?? '');
  if (t.includes('Hot lines')) return code(`hotpath_hot_lines {"runId": "${runId}"}`);
  if (t.includes('Hotspots')) return code(`hotpath_report {"runId": "${runId}", "sections": ["hotspots"], "limit": 40}`);
  return undefined;
}

/** The answer to a run tool: its report (a profile's cut to the hottest rows) and what to ask next. */
export function resultReport(result: RunResultAny, runId: string, cwd: string): Report {
  // A profile's answer: its hottest rows, and only the checks that found something (the rest pass).
  const short = 'hotspots' in result && (result.kind === 'profile' || result.kind === 'script')
    ? { ...result, hotspots: result.hotspots.slice(0, 8), lines: result.lines.slice(0, 10), packages: result.packages.slice(0, 5), checks: result.checks?.filter((c) => c.status !== 'pass') } as RunResultAny
    : result;
  const report = buildReport(short, { cwd });
  const next: Inline[] = [];
  if (result.kind === 'profile' || result.kind === 'script' || (result.kind === 'startup' && result.profilePath)) {
    const top = 'lines' in result ? result.lines[0] : undefined;
    next.push(['All lines, paged: ', code(`hotpath_hot_lines {"runId": "${runId}"}`)]);
    if (top) next.push(['One function: ', code(`hotpath_explain {"runId": "${runId}", "file": ${JSON.stringify(path.relative(cwd, top.file).startsWith('..') ? top.file : path.relative(cwd, top.file))}, "line": ${top.line}}`)]);
    next.push(['After a fix: ', code('hotpath_verify'), ' (after ', code('hotpath_baseline'), ') or ', code('hotpath_compare {"base": "HEAD", …}')]);
  }
  next.push(['runId ', code(runId)]);
  return { ...report, sections: [...report.sections, section('hint', [text(next.map((n) => line(n, 2)), 'Next')])] };
}
