/**
 * What a Node startup expert would say about a measured start, where it applies: defer a require that
 * costs a lot on every start, let Node cache compiled code, start package.json scripts without npm.
 * Every piece of advice is tied to a measured number (and the line to change, when there is one). Pure.
 */
import { formatMs, formatPct } from '../../shared/text/numbers';
import type { ModuleRow } from './moduleTree';
import type { StartupUsage } from './usage';

export interface StartupAdvice {
  id: 'lazy-require' | 'compile-cache' | 'node-run';
  title: string;
  text: string;
  /** The line to change, when the advice is about one. */
  file?: string;
  line?: number | null;
  /** What the measurement says it could save per start, ms (an upper bound for a lazy require). */
  savesMs?: number;
}

export interface AdviceInput {
  /** Mean startup of the timed runs. */
  meanMs: number;
  modules: readonly ModuleRow[];
  nodeVersion: string;
  compileCache: { available: boolean; directory: string | null };
  /** Wrapper processes that ran before the program (`npm`), and how long until the program's clock started. */
  wrappers: readonly string[];
  launchMs: number | null;
  command: readonly string[];
  /** What startup runs of each package and app file after loading it (from the merged profile), when profiled. */
  usage?: { of: StartupUsage; runs: number };
  /** Measured with the compile cache on, when Hotpath tried it. */
  compileCacheTrial?: { withMs: number; withoutMs: number; ratio: number; significant: boolean };
}

/** Below this (ms per start, sampled), startup does not use a module's code after loading it. */
const UNUSED_MS = 0.05;
/** A dependency (or app module) loaded from the app's own code costing at least this share of startup. */
const LAZY_SHARE = 0.1;
const LAZY_MIN_MS = 5;
/** The compile cache matters once a start compiles this many modules. */
const COMPILE_CACHE_MIN_MODULES = 20;

const isAppFile = (file: string) => !/[\\/]node_modules[\\/]/.test(file) && !file.startsWith('node:');

function major(version: string): number {
  return Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
}

/** `npm run start`, `npm start`, `npm test`, `yarn dev`, `pnpm run build`: the script name, if the command is one. */
export function packageScriptOf(command: readonly string[]): { runner: string; script: string } | undefined {
  const [bin, ...rest] = command.map((w) => w.replace(/^.*[\\/]/, ''));
  if (!bin || !/^(npm|yarn|pnpm)$/.test(bin)) return undefined;
  const args = rest.filter((a) => !a.startsWith('-'));
  if (args[0] === 'run' || args[0] === 'run-script') return args[1] ? { runner: bin, script: args[1] } : undefined;
  if (['start', 'test', 'stop', 'restart'].includes(args[0] ?? '')) return { runner: bin, script: args[0] };
  if (bin !== 'npm' && args[0]) return { runner: bin, script: args[0] }; // yarn dev, pnpm dev
  return undefined;
}

export function startupAdvice(input: AdviceInput): StartupAdvice[] {
  const out: StartupAdvice[] = [];
  const lazy = input.modules
    .filter((m) => m.requiredFrom && m.requiredFrom.line !== null && isAppFile(m.requiredFrom.file) && m.parent !== null)
    .filter((m) => m.totalMs >= LAZY_MIN_MS && m.totalMs >= input.meanMs * LAZY_SHARE)
    .map((m) => ({ m, usedMs: input.usage ? (m.package ? input.usage.of.packageMs(m.package) : input.usage.of.fileMs(m.file)) : undefined }))
    // Code that startup itself calls cannot be deferred; advise only where the profile saw none (or there is no profile).
    .filter((x) => x.usedMs === undefined || x.usedMs < UNUSED_MS)
    .sort((a, b) => b.m.totalMs - a.m.totalMs)
    .slice(0, 3);
  for (const { m, usedMs } of lazy) {
    const what = m.package && m.module === m.package ? `the package ${m.package}` : m.module;
    const deferrable = m.format === 'esm' ? 'load it where it is used instead (`await import()` inside the function)' : 'load it where it is used instead (a require inside the function)';
    const seen = usedMs !== undefined
      ? `The ${input.usage!.runs} profiled starts spent no sampled time in its functions after it loaded. If startup does not use what it exports, ${deferrable}, so only the work that needs it pays for it.`
      : `If the code that uses it does not run during startup, ${deferrable}, so only the work that needs it pays for it.`;
    out.push({
      id: 'lazy-require', file: m.requiredFrom!.file, line: m.requiredFrom!.line, savesMs: m.totalMs,
      title: `Loading ${what} costs ${formatMs(m.totalMs)} on every start`,
      text: `${m.format === 'esm' ? 'Importing' : 'Requiring'} ${m.module} here loads ${m.modules} module${m.modules === 1 ? '' : 's'} in ${formatMs(m.totalMs)} (${formatPct((m.totalMs / input.meanMs) * 100)} of the start). ${seen}`,
    });
  }

  const compiled = input.modules.length;
  if (compiled >= COMPILE_CACHE_MIN_MODULES && !input.compileCache.directory) {
    const trial = input.compileCacheTrial;
    if (input.compileCache.available) {
      const measured = trial
        ? ` Measured here: ${formatMs(trial.withoutMs)} → ${formatMs(trial.withMs)} per start with the cache (${trial.significant ? `${formatPct(Math.abs(1 - trial.ratio) * 100)} ${trial.ratio < 1 ? 'faster' : 'slower'}` : 'no significant change'}).`
        : '';
      out.push({
        id: 'compile-cache', ...(trial && trial.significant && trial.ratio < 1 ? { savesMs: trial.withoutMs - trial.withMs } : {}),
        title: 'Let Node cache the compiled code of your modules',
        text: `This start compiles ${compiled} modules from source every time. Node ${input.nodeVersion} can keep V8's compiled code on disk: call \`require('node:module').enableCompileCache()\` at the top of the entry point (before other requires), or set NODE_COMPILE_CACHE=<directory> for the process; later starts reuse it.${measured}`,
      });
    } else if (major(input.nodeVersion) > 0 && major(input.nodeVersion) < 22) {
      out.push({
        id: 'compile-cache',
        title: 'A newer Node can cache compiled code',
        text: `This start compiles ${compiled} modules from source every time. Node 22.1 and later can keep V8's compiled code on disk (\`module.enableCompileCache()\` or NODE_COMPILE_CACHE); Node ${input.nodeVersion} cannot.`,
      });
    }
  }

  const script = packageScriptOf(input.command);
  if (script && input.wrappers.length && input.launchMs !== null && input.launchMs > 0) {
    const runnable = major(input.nodeVersion) >= 22;
    out.push({
      id: 'node-run', savesMs: input.launchMs,
      title: `${script.runner} takes ${formatMs(input.launchMs)} before your program starts`,
      text: `${formatMs(input.launchMs)} of the ${formatMs(input.meanMs)} pass before the program's own process starts: that is ${input.wrappers.join(' → ')} starting and reading package.json. ${runnable ? `\`node --run ${script.script}\` runs the same package.json script without ${script.runner} (Node 22+; it does not run pre/post scripts).` : `Node 22 and later can run package.json scripts without it (\`node --run ${script.script}\`); on Node ${input.nodeVersion}, start the program with \`node\` directly.`}`,
    });
  }
  return out;
}
