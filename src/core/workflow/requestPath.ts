/**
 * Which request the load sends when the user did not say: once the app listens, what it printed at
 * startup and the routes its framework registered are offered (VS Code asks, with those paths first;
 * the CLI and launch.json take the URL the app printed, else `/`), and a warm-up answered only with
 * 404 or 405 stops the run before anything is profiled — with the paths the app does serve.
 */
import { type CancellationToken } from '../common/cancellation';
import { cancelledError, ErrorCode, HotpathError } from '../common/errors';
import type { Logger } from '../common/logger';
import { type LoadOptions, type LoadOptionsInput, resolveLoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { announcedDefault, describeCandidate, routeCandidates, type RouteCandidate } from '../routes/candidates';
import type { LaunchedTarget } from '../target/launcher';
import type { HttpReady } from '../target/readiness';
import type { RoutesReport } from '../target/reports';
import { formatInt } from '../../shared/text/numbers';
import { type PhaseContext, warmUp } from './loadPhases';
import type { ProgressSink } from './progress';

export interface RequestOffer {
  /** The port the app listens on (the load goes to 127.0.0.1 there). */
  port: number;
  /** Best first (routes/candidates.ts). */
  candidates: RouteCandidate[];
  /** The framework route table read in the app, when there was one. */
  routeTable?: { framework: string; routes: number; unknownPrefix: number; truncated: boolean };
}

export interface RequestChoice {
  path: string;
  method?: string;
}

/** A first load run whose every response was 404 Not Found or 405 Method Not Allowed. */
export interface RouteMiss {
  method: string;
  path: string;
  /** The most frequent status (404 or 405). */
  status: number;
  responses: number;
}

/**
 * The front end's say in the request (VS Code's quick pick). Without one, the app's own announced URL
 * is used, else `/`, and a run whose warm-up gets only 404s fails with the paths the app serves.
 */
export interface RequestChooser {
  /** The path used last for this app, offered first. */
  lastUsed?: RequestChoice;
  /** The app is up; the load has no path yet. Throws (cancelled) to stop the run. */
  choose(offer: RequestOffer, token: CancellationToken): Promise<RequestChoice>;
  /** The warm-up got only 404/405 for `miss`: another request, or undefined to stop the run. */
  retry?(offer: RequestOffer, miss: RouteMiss, token: CancellationToken): Promise<RequestChoice | undefined>;
}

/** What the warm-up's route check may use: the app's routes (read lazily) and the front end's chooser. */
export interface RequestCheck {
  offer?: () => Promise<RequestOffer>;
  chooser?: RequestChooser;
}

export interface RequestContext {
  chooser?: RequestChooser;
  logger: Logger;
  token: CancellationToken;
  progress?: ProgressSink;
}

/** How long to wait for the app's "listening on http://…" line after the preload reported the port. */
const ANNOUNCE_GRACE_MS = 1000;

/** What the app told about its routes, as offered candidates. */
export async function offerFor(target: LaunchedTarget, ready: HttpReady, lastUsed?: RequestChoice): Promise<RequestOffer> {
  await target.announcements.settle(ready.port, ANNOUNCE_GRACE_MS);
  target.reader.poll();
  const tables = target.reader.reports.filter((r): r is RoutesReport => r.type === 'routes' && r.port === ready.port);
  const table = tables.find((t) => t.pid === ready.process.pid) ?? tables[0];
  const candidates = routeCandidates({
    announced: target.announcements.on(ready.port),
    registered: table?.routes ?? [],
    mapped: target.announcements.mapped,
    ...(lastUsed ? { lastUsed } : {}),
  });
  return {
    port: ready.port,
    candidates,
    ...(table ? { routeTable: { framework: table.framework, routes: table.routes.length, unknownPrefix: table.unknownPrefix, truncated: table.truncated } } : {}),
  };
}

/**
 * The load options for a target that listens now: as given when the user named a path or URL, else
 * chosen (front end) or taken from the app's announcement, else `/`.
 */
export async function resolveRequest(load: LoadOptionsInput, target: LaunchedTarget, ready: HttpReady, ctx: RequestContext): Promise<{ options: LoadOptions; offer: () => Promise<RequestOffer> }> {
  let offered: Promise<RequestOffer> | undefined;
  // Read when needed: to choose now, or to name the app's routes should the warm-up get only 404s.
  const offer = () => (offered ??= offerFor(target, ready, ctx.chooser?.lastUsed));
  // A path, a URL or several routes (--request, a load file): the user said what to load.
  if (load.url !== undefined || load.path !== undefined || load.routes?.length) return { options: resolveLoadOptions(load, { port: ready.port }), offer };
  const found = await offer();
  if (ctx.token.isCancellationRequested) throw cancelledError();
  let choice: RequestChoice;
  if (ctx.chooser) {
    ctx.progress?.({ stage: 'starting', message: `The app listens on port ${ready.port}: choose the request to load` });
    choice = await ctx.chooser.choose(found, ctx.token);
    ctx.logger.info(`Load request chosen: ${choice.method ?? load.method ?? 'GET'} ${choice.path}`);
  } else {
    const announced = announcedDefault(found.candidates);
    choice = announced ? { path: announced.path, method: load.method === undefined ? announced.method : undefined } : { path: '/' };
    ctx.logger.info(announced ? `Loading ${choice.path}: the URL the app printed at startup (--path changes it)` : 'Loading / (the app printed no URL on its port; --path changes it)');
  }
  if (ctx.token.isCancellationRequested) throw cancelledError();
  const options = resolveLoadOptions({ ...load, path: choice.path, ...(choice.method ? { method: choice.method } : {}) }, { port: ready.port });
  return { options, offer };
}

/** Only 404s (or 405s): the path or method is wrong, and a profile would measure the app's error page. */
export function routeMiss(result: LoadResult | undefined, options: Pick<LoadOptions, 'method' | 'path'>): RouteMiss | undefined {
  if (!result || result.requests.total === 0) return undefined;
  const codes = Object.entries(result.statusCodes).filter(([, n]) => n > 0);
  if (!codes.length || !codes.every(([code]) => code === '404' || code === '405')) return undefined;
  codes.sort((a, b) => b[1] - a[1]);
  return { method: options.method, path: options.path, status: Number(codes[0][0]), responses: result.requests.total };
}

const STATUS_TEXT: Record<number, string> = { 404: 'Not Found', 405: 'Method Not Allowed' };

/** The error when nobody chose another path: what was answered, and the paths the app does serve. */
export function routeMissError(miss: RouteMiss, offer: RequestOffer | undefined): HotpathError {
  const served = (offer?.candidates ?? []).filter((c) => !(c.method === miss.method && c.path === miss.path));
  const list = served.slice(0, 6).map((c) => `${describeCandidate(c)}${c.sources.includes('announced') ? ' (printed at startup)' : ''}`);
  const more = served.length > 6 ? ` and ${served.length - 6} more` : '';
  const hint = list.length
    ? ` The app serves ${list.join(', ')}${more}: pass one with --path (VS Code: "Hotpath: Choose Target…", or "path" in hotpath.targets).`
    : ' Pass the path of a real route with --path (VS Code: "Hotpath: Choose Target…", or "path" in hotpath.targets).';
  return new HotpathError(ErrorCode.RouteNotFound,
    `Every request of the warm-up (${formatInt(miss.responses)}) to ${miss.method} ${miss.path} was answered ${miss.status} ${STATUS_TEXT[miss.status] ?? ''}: profiling now would measure the app's error handling, not its work.${hint}`,
    { miss, candidates: served.map(describeCandidate) });
}

/**
 * The warm-up, checked: while its responses are all 404/405, the front end may choose another request
 * (VS Code) and the warm-up runs again with it; otherwise the run stops with the paths the app serves.
 * Returns the load options to measure with.
 */
export async function warmUpChecked(options: LoadOptions, phase: PhaseContext, check: RequestCheck): Promise<LoadOptions> {
  let current = options;
  for (let attempt = 0; ; attempt++) {
    const result = await warmUp(current, phase);
    const miss = routeMiss(result, current);
    if (!miss) return current;
    phase.logger.warn(`Warm-up: every response to ${miss.method} ${miss.path} was ${miss.status}`);
    const offer = check.offer ? await check.offer() : undefined;
    // An explicit URL names its own path: nothing to choose instead.
    const canRetry = check.chooser?.retry !== undefined && current.url === undefined && attempt < 5;
    if (canRetry) phase.progress({ stage: 'warmup', message: `Every request to ${miss.method} ${miss.path} got ${miss.status}: choose another path` });
    const next = canRetry ? await check.chooser!.retry!(offer ?? { port: current.port ?? 0, candidates: [] }, miss, phase.token) : undefined;
    if (!next) throw routeMissError(miss, offer);
    current = resolveLoadOptions({ ...current, path: next.path, method: next.method ?? current.method }, { port: current.port });
  }
}
