/**
 * The leak check's heap ceiling, and how a check that ended with the app out of memory is recognised.
 *
 * A leak fills the heap; V8's own limit is a quarter of the machine's memory (up to 4 GB), so a fast leak
 * under the check's load can take the machine into swap and the check minutes of full GCs before V8 gives
 * up. The check therefore starts the app with `--max-old-space-size` (in NODE_OPTIONS, so every node
 * process of the command gets it) at most LEAK_HEAP_CEILING_MB — never above V8's own default — unless the
 * app sets its own (in NODE_OPTIONS or on the command line, which wins over NODE_OPTIONS): then that one
 * is respected. A leak then ends the app in bounded time and memory, and the check says so.
 */
import * as os from 'node:os';

/** The check's ceiling for the app's old space (MB): far above what a request path needs, far below a machine's memory. */
export const LEAK_HEAP_CEILING_MB = 1024;

/** V8's heap-size flags, in NODE_OPTIONS or on a node command line (dashes or underscores, as V8 accepts). */
const HEAP_SIZE_FLAG = /(?:^|\s)--max[-_](?:old[-_]space|heap)[-_]size(?:[=\s]|$)/;
const OLD_SPACE_VALUE = /(?:^|\s)--max[-_]old[-_]space[-_]size(?:=|\s+)(\d+)/;

export interface HeapCeiling {
  /** The old-space limit (--max-old-space-size, MB): the check's, or the app's own when it names one; else null. */
  maxOldSpaceMb: number | null;
  setBy: 'hotpath' | 'app';
  /** V8's heap limit as the app reported it (v8.getHeapStatistics().heap_size_limit), when it could be read. */
  heapSizeLimitBytes: number | null;
}

export interface CeilingPlan {
  ceiling: HeapCeiling;
  /** The environment to start the app with (NODE_OPTIONS with the ceiling added, when Hotpath sets it). */
  env: Record<string, string | undefined> | undefined;
}

/** min(LEAK_HEAP_CEILING_MB, V8's own default of a quarter of the machine's memory). */
export function defaultCeilingMb(totalMemoryBytes = os.totalmem()): number {
  return Math.max(64, Math.min(LEAK_HEAP_CEILING_MB, Math.floor(totalMemoryBytes / 4 / 2 ** 20)));
}

/**
 * Adds `--max-old-space-size` to the NODE_OPTIONS the app will see, unless the command line or those
 * NODE_OPTIONS (the user's --env over Hotpath's own environment) already set a heap size.
 */
export function planHeapCeiling(
  command: readonly string[],
  env: Record<string, string | undefined> | undefined,
  inherited: NodeJS.ProcessEnv = process.env,
  totalMemoryBytes = os.totalmem(),
): CeilingPlan {
  const nodeOptions = env && 'NODE_OPTIONS' in env ? env.NODE_OPTIONS : inherited.NODE_OPTIONS;
  const own = [nodeOptions ?? '', ...command].filter((text) => HEAP_SIZE_FLAG.test(text));
  if (own.length) {
    // The command line comes last and wins over NODE_OPTIONS, as in node itself.
    const values = own.map((text) => OLD_SPACE_VALUE.exec(text)?.[1]).filter((v): v is string => v !== undefined);
    return { ceiling: { maxOldSpaceMb: values.length ? Number(values[values.length - 1]) : null, setBy: 'app', heapSizeLimitBytes: null }, env };
  }
  const mb = defaultCeilingMb(totalMemoryBytes);
  const withCeiling = [nodeOptions, `--max-old-space-size=${mb}`].filter(Boolean).join(' ');
  return { ceiling: { maxOldSpaceMb: mb, setBy: 'hotpath', heapSizeLimitBytes: null }, env: { ...env, NODE_OPTIONS: withCeiling } };
}

/** The app's V8 heap limit, read in the app (process.getBuiltinModule: Node 20.16+). */
export const HEAP_LIMIT_EXPRESSION = "(typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('v8').getHeapStatistics().heap_size_limit : null)";

/**
 * V8's fatal out-of-memory report, as it prints it (line start, so an app that logs the words does not
 * count): "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
 * "FATAL ERROR: Ineffective mark-compacts near heap limit …", "# Fatal JavaScript out of memory: …",
 * "# Fatal process out of memory: …".
 */
const V8_OUT_OF_MEMORY = /^\s*(?:FATAL ERROR:.*(?:heap limit|out of memory|Allocation failed)|#?\s*Fatal (?:JavaScript|process) out of memory\b).*$/m;

/** V8's out-of-memory line in the app's last output, or null. */
export function outOfMemoryLine(output: string): string | null {
  return V8_OUT_OF_MEMORY.exec(output)?.[0].trim() ?? null;
}

/**
 * A --rung that lets the whole check (4 × N requests after the warm-up) fit in a quarter of the room the
 * old space had left after the warm-up, at the growth measured before the crash (a heap near its limit
 * spends its time in GC); null when that cannot be said. V8's heap_size_limit counts the young
 * generation too — 48 MB on Node 20, 192 MB on Node 24 for a 64 MB old space — so it is used only when
 * the old space's own limit is unknown.
 */
export function rungThatFits(ceiling: HeapCeiling, heapAfterWarmupBytes: number | undefined, bytesPerRequest: number): number | null {
  const limitBytes = ceiling.maxOldSpaceMb !== null ? ceiling.maxOldSpaceMb * 2 ** 20 : ceiling.heapSizeLimitBytes;
  if (!limitBytes || heapAfterWarmupBytes === undefined || !(bytesPerRequest > 0)) return null;
  const room = limitBytes - heapAfterWarmupBytes;
  if (room <= 0) return null;
  const n = Math.floor((0.25 * room) / (4 * bytesPerRequest));
  return n >= 10 ? n : null;
}
