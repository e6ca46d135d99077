/**
 * The JavaScript Hotpath evaluates inside the target over CDP (Runtime.evaluate / callFunctionOn).
 * Expressions that use `%` natives must be *parsed* while `--allow-natives-syntax` is on, so each one
 * is its own evaluation after the flag was set; the flag is switched off again right after, because
 * while it is on any code the app compiles (`new Function` of a template, say) could call V8 natives.
 *
 * Natives are called only with arguments of the type they require: V8 checks argument types of
 * runtime functions only in debug builds, so a wrong type could crash a release build.
 */
import { PROBE_NAME } from './traceParser';

/** `v8.setFlagsFromString(flags)` in the target (process.getBuiltinModule: Node ≥ 20.16). */
export function setFlagsExpression(flags: string): string {
  return `process.getBuiltinModule('v8').setFlagsFromString(${JSON.stringify(flags)}), true`;
}

/**
 * A safety net in the target: if Hotpath never switches the signals off (it was killed, the connection
 * dropped), the app does so itself after `ms`, from an unref'd timer (it never keeps the app alive).
 */
export function guardExpression(disableFlags: string, ms: number): string {
  return `(() => { clearTimeout(globalThis.__hotpathV8Guard); const t = setTimeout(() => process.getBuiltinModule('v8').setFlagsFromString(${JSON.stringify(disableFlags)}), ${Math.round(ms)}); t.unref?.(); globalThis.__hotpathV8Guard = t; return true; })()`;
}

export const UNGUARD_EXPRESSION = `(clearTimeout(globalThis.__hotpathV8Guard), delete globalThis.__hotpathV8Guard, true)`;

/** What the target is: version, V8 build, the flags it was started with. No natives. */
export const DESCRIBE_EXPRESSION = `JSON.stringify({
  nodeVersion: process.version,
  maglev: Boolean(process.config && process.config.variables && process.config.variables.v8_enable_maglev),
  execArgv: process.execArgv,
  nodeOptions: process.env.NODE_OPTIONS ?? null,
  nodeEnv: process.env.NODE_ENV ?? null,
  sourceMapsEnabled: typeof process.sourceMapsEnabled === 'boolean' ? process.sourceMapsEnabled : null,
})`;

/**
 * Probe functions of known state. `…Loop` runs a tiny function hot, so V8 marks and compiles code with
 * `--trace-opt` on: a line with the probe's name in our file proves that tracing reaches it. (No
 * %OptimizeFunctionOnNextCall: V8 prints its "manually marking" line on stdout, which would be the
 * app's own output when attaching.) `…Interpreted` runs once, so it is interpreted: its status
 * calibrates the status bit layout (statusBits.ts). Returns [hotStatus, interpretedStatus].
 */
export const PROBE_EXPRESSION = `(() => {
  function ${PROBE_NAME}(x) { return (x + 1) | 0; }
  function ${PROBE_NAME}Interpreted(x) { return x - 1; }
  function ${PROBE_NAME}Loop() { let s = 0; for (let i = 0; i < 300000; i++) s = ${PROBE_NAME}(s); return s; }
  ${PROBE_NAME}Loop();
  ${PROBE_NAME}Interpreted(1);
  return [%GetOptimizationStatus(${PROBE_NAME}), %GetOptimizationStatus(${PROBE_NAME}Interpreted)];
})()`;

/**
 * The probe with V8's tracing switched on only around it, in one synchronous evaluation in one isolate
 * (`off` absent: tracing stays on). The isolate's first trace line creates its code tracer, which fixes
 * its trace file for good; with tracing on for these few milliseconds only, another thread's isolate
 * that has not been set up yet is unlikely to trace into this isolate's file meanwhile.
 */
export function windowedProbeExpression(on: string, off: string | undefined): string {
  return `(() => { const v8 = process.getBuiltinModule('v8'); v8.setFlagsFromString(${JSON.stringify(on)}); try { return ${PROBE_EXPRESSION}; } finally { ${off ? `v8.setFlagsFromString(${JSON.stringify(off)});` : ''} } })()`;
}

/**
 * V8's protector cells still intact (true) or invalidated (false). A protector guards a fast path that
 * assumes a built-in was not modified; once invalid it stays invalid for the life of the process. Each
 * native is compiled on its own (`new Function`) because not every V8 has every protector (Node 20 has
 * no %NoElementsProtector): a missing one must not fail the rest.
 */
export const PROTECTORS = ['NoElements', 'ArraySpecies', 'ArrayIterator', 'MapIterator', 'SetIterator', 'StringIterator', 'PromiseSpecies', 'RegExpSpecies', 'TypedArraySpecies', 'IsConcatSpreadable'] as const;

export const PROTECTORS_EXPRESSION = `JSON.stringify((() => {
  const out = {};
  for (const name of ${JSON.stringify(PROTECTORS)}) {
    try { out[name] = new Function('return %' + name + 'Protector()')() === true; } catch { /* not in this V8 */ }
  }
  // Node 20's V8 has no %NoElementsProtector: the condition it guards, checked structurally
  // (elements on, or a replaced prototype of, Array.prototype / Object.prototype).
  if (!('NoElements' in out)) {
    const standard = Object.getPrototypeOf(Array.prototype) === Object.prototype && Object.getPrototypeOf(Object.prototype) === null;
    const indexed = (o) => Object.getOwnPropertyNames(o).some((k) => String(k >>> 0) === k);
    out.NoElementsStructural = standard && !indexed(Array.prototype) && !indexed(Object.prototype);
  }
  return out;
})())`;

/**
 * Called on the array of every function (Runtime.queryObjects of Function.prototype) with
 * `wanted` = { scriptId: [start offsets] }, `named` = { scriptId: [names] } (functions the trace
 * knows by name only) and the layout's "optimized" bit. Returns a flat array of
 * [scriptId, start, status, sourceLength, name] for each live function at a wanted position or with
 * a wanted name (name only then, else ''); sourceLength only for unoptimized ones (to tell a
 * too-large one), else -1. %FunctionGetScriptId accepts any receiver and is >= 0 only for a real
 * JSFunction, so the natives after it (and the `name` read, which then cannot reach a Proxy trap)
 * see only JSFunctions.
 */
export const STATUS_QUERY_FUNCTION = `function (wanted, named, optimizedBit) {
  const want = new Map();
  for (const id of Object.keys(wanted)) want.set(Number(id), new Set(wanted[id]));
  const names = new Map();
  for (const id of Object.keys(named)) names.set(Number(id), new Set(named[id]));
  const out = [];
  for (let i = 0; i < this.length; i++) {
    const f = this[i];
    if (typeof f !== 'function') continue;
    const id = %FunctionGetScriptId(f);
    if (id < 0) continue;
    const positions = want.get(id);
    const byName = names.get(id);
    if (positions === undefined && byName === undefined) continue;
    const start = %FunctionGetScriptSourcePosition(f);
    let name = '';
    if (positions === undefined || !positions.has(start)) {
      if (byName === undefined) continue;
      const d = Object.getOwnPropertyDescriptor(f, 'name');
      if (!d || typeof d.value !== 'string' || !byName.has(d.value)) continue;
      name = d.value;
    }
    const status = %GetOptimizationStatus(f);
    let length = -1;
    if (optimizedBit > 0 && Math.floor(status / optimizedBit) % 2 === 0) {
      const source = %FunctionGetSourceCode(f);
      length = typeof source === 'string' ? source.length : -1;
    }
    out.push(id, start, status, length, name);
  }
  return out;
}`;
