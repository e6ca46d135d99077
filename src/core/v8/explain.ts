/**
 * What V8's reasons mean for a Node developer, and the usual fix. Only claims that hold on the V8 of
 * Node 20–24 (checked against V8's sources and the runs in v8-signals.md): try/catch and `arguments`
 * no longer stop optimization (they did in Crankshaft, before Node 8.3); what costs is throwing in hot
 * code and types or shapes that change after V8 has specialized the code.
 */
import type { Explanation, NotOptimizedCause, V8Finding } from './types';

const e = (title: string, text: string, fix: string): Explanation => ({ title, text, fix });

const SHAPES = e(
  'Object shape changed (wrong map)',
  'The optimized code was specialized for objects of one hidden class (V8\'s "map": which properties an object has, in which order, with which kinds of values) and met an object of another. Typical causes: objects built with properties in different orders, properties added after construction or deleted, or different classes passing through the same function.',
  'Create these objects in one place (a class or factory) with every property initialized in the same order, and avoid adding or deleting properties later. A site that sees up to four shapes stays reasonably fast; more make it megamorphic.',
);

const NUMBERS = e(
  'A number changed representation',
  'The optimized code assumed a small integer (a "Smi", which V8 stores unboxed) and got a fractional or too-large number, or the reverse, so it went back to the interpreter to continue with the general case.',
  'Keep numbers in this path of one kind: integers stay integers (e.g. truncate with Math.floor or |0 where an integer is meant), or use fractional values from the start. V8 re-optimizes with the wider type, so a single deopt is cheap; repeated ones mean the type keeps flipping.',
);

const TYPES = e(
  'A value of an unexpected type',
  'The optimized code was specialized for one type of value here (a string, a number, an object…) and received another, e.g. undefined or null from a missing field, or a string where a number was expected.',
  'Validate or convert inputs where they enter the hot path so the code always sees one type; check for unintended undefined values (missing properties, optional arguments).',
);

const FEEDBACK = e(
  'Code that had not run before optimization',
  'V8 optimized the function before this part of it had ever run, so it had no type feedback for it and left a deopt in its place. The first time it runs, the function goes back to the interpreter and is optimized again later with the new feedback. Typical for rarely taken branches: error handling, first-time initialization, a new request type.',
  'A one-off deopt of this kind is harmless. If it repeats, make the warm-up exercise this branch, or move the rarely run code into its own function.',
);

const BOUNDS = e(
  'Array access outside what the code expected',
  'An element read or write fell outside the array (index ≥ length, negative) or hit an empty slot, which the optimized code had not seen before.',
  'Keep indices inside 0…length−1, build arrays densely (push, fill, or preallocate and fill) instead of leaving holes or writing past the end, and avoid `delete arr[i]`.',
);

const ARITHMETIC = e(
  'Integer arithmetic left its fast range',
  'The optimized code did integer arithmetic and the result overflowed 32 bits, was −0, or was not an integer (a division with a remainder), so it deoptimized to continue with doubles.',
  'If large or fractional values are expected here, V8 re-optimizes for them; if not, check the inputs. Producing −0 (e.g. 0 * −1, Math.round(−0.4)) is a common surprise.',
);

const CALL_TARGET = e(
  'A call site saw a different function',
  'V8 specialized a call for the one function it always saw there (often inlining it) and then another function arrived. A frequent cause is a function re-created on every call — a callback or closure defined inside a hot function is a new function object each time.',
  'Hoist such functions to the module\'s top level (pass what they need as arguments), or keep the set of functions called from a hot site small and stable.',
);

const TRY_CATCH = e(
  'First exception through an optimized catch',
  'The catch block had never run when V8 optimized the function, so the first exception thrown into it deoptimizes. try/catch itself does not stop optimization on today\'s V8 — throwing in hot code costs (creating the Error and its stack trace, unwinding).',
  'Do not use exceptions for expected outcomes in hot code (return a result or status instead); keep throwing for real errors.',
);

const FIELDS = e(
  'A field changed how it is stored',
  'A property started holding a different kind of value (an integer field got a fractional number or an object, a constant field was overwritten), so V8 migrated the objects\' shape and threw away code specialized for the old one.',
  'Initialize each property with a value of the kind it will keep (e.g. 0.5 rather than 0 for a field that holds fractions, null rather than a number for an object field) and avoid overwriting fields V8 saw as constant in hot paths.',
);

const DEPENDENCY = e(
  'An assumption of the optimized code changed',
  'V8 threw this optimized code away because something it relied on changed elsewhere: an object\'s prototype chain or a property of it, a global or module-level binding, a field\'s type, or a built-in prototype (which also makes V8 leave its fast paths for good).',
  'Set up classes, prototypes and globals once at startup and do not modify them (or built-ins such as Array.prototype) while serving requests.',
);

const OSR = e(
  'On-stack replacement (bookkeeping, not a problem)',
  'V8 left optimized code of a long-running loop to continue it in more optimized code (Maglev → TurboFan on Node 24). No assumption failed.',
  'Nothing to fix: shown for completeness.',
);

const DEBUGGER = e(
  'A debugger attached',
  'Optimized code was discarded because a debugger attached or set breakpoints. Code under a debugger does not run like production code.',
  'Profile without a debugger attached, or at least without breakpoints or logpoints in hot code.',
);

const BY_REASON: Array<[RegExp, Explanation]> = [
  [/^wrong map$|^map changed during operation$/, SHAPES],
  [/^not a Smi$|^not a heap number$|^lost precision$|^not int32$|^not unsigned int32$|^not AdditiveSafeInteger$/, NUMBERS],
  [/^Smi$|^not a (Number|String|Symbol|BigInt|JavaScript object|Number or Oddball|Number or Boolean|string wrapper|String or a string wrapper|sequential one-byte String|detectable receiver)|^not a BigInt64$|^not a JavaScript object, Null or Undefined$|^wrong instance type$|^wrong value$|^value mismatch$|^wrong name$|^not an array index$/, TYPES],
  [/^Insufficient type feedback/, FEEDBACK],
  [/^out of bounds$|^hole$|^no initial element$|^the array length changed$|^copy-on-write array's elements changed$|^failed to grow elements store$|^length is greater than/, BOUNDS],
  [/^overflow$|^minus zero$|^division by zero$|^NaN$|^lost precision or NaN$/, ARITHMETIC],
  [/^wrong call target|^wrong feedback cell$/, CALL_TARGET],
  [/^First use of catch block$/, TRY_CATCH],
  [/^deprecated map$|^instance migration failed$|^Storing to a constant field$|^dependent field|^const tracking let/, FIELDS],
  [/^prepare for on stack replacement|^exit from OSR'd inner loop$/, OSR],
  [/^JS debugger attached$/, DEBUGGER],
  [/^dependent |^code dependencies$|^\(unknown\)$|^an assumption the optimized code relied on changed$|^embedded weak objects cleared$|^weak objects$/, DEPENDENCY],
  [/^unexpected name in keyed access$|^wrong enum indices$|^no cache$/, e(
    'A keyed access saw a different key',
    'Code specialized for `obj[key]` with one key (or for a for-in over one shape) saw another key or shape.',
    'Prefer fixed property names (obj.name) or a Map for dynamic keys in hot code; iterate objects of one shape.',
  )],
];

export function explainDeopt(reason: string): Explanation | undefined {
  return BY_REASON.find(([re]) => re.test(reason))?.[1];
}

/** Why a hot function ended the run unoptimized; `detail` is V8's own text or the figure to quote. */
export function explainNotOptimized(cause: NotOptimizedCause, detail = '', mode: 'launch' | 'attach' | 'script' = 'launch'): Explanation {
  switch (cause) {
    case 'disabled':
      return e(`V8 disabled optimization (${detail})`, `V8 gave up on optimizing this function for good: "${detail}". It keeps running in the interpreter or Sparkplug.`,
        /too big/i.test(detail) ? 'Split the function into smaller ones.' : /debug/i.test(detail) ? 'Detach the debugger / remove breakpoints and measure again.' : 'If this is not intended, look for what disables it (natives such as %NeverOptimizeFunction, a debugger).');
    case 'breakpoint':
      return e('Marked for optimization, never compiled', `V8 decided ${detail} times that this function is hot enough to optimize but never compiled it. V8 does this for functions under a debugger breakpoint or logpoint (they stay in the interpreter so the break can fire) and while a debugger is stepping.`,
        'Remove breakpoints and logpoints from hot code (or detach the debugger) before measuring; production runs without them.');
    case 'aborted':
      return e('Optimization aborted', `V8 started optimizing this function and gave up: "${detail}".`, 'Simplify the function or split the part V8 cannot compile into its own function.');
    case 'too-large':
      return e('Too large to optimize', `This function is ${detail} of source. TurboFan does not optimize functions whose bytecode exceeds --max-optimized-bytecode-size (60 KB), so very long functions (often generated code) stay unoptimized.`,
        'Split it into smaller functions, or generate smaller ones.');
    case 'deoptimized':
      return e('Deoptimized, not re-optimized yet', 'V8 optimized this function, its assumptions failed (see the deopts), and by the end of the run it had not been optimized again.',
        'Fix the cause of the deopts (usually changing types or shapes); V8 then keeps it optimized.');
    case 'never-marked':
      // A script has no warm-up to lengthen: what it can change is how much work one run does.
      return mode === 'script'
        ? e('Never optimized', 'V8 never marked this function for optimization while the script ran: each call was too short or too rare for the tiering heuristics, or the script ended before they kicked in.',
          'If it matters, profile the script on a larger input: V8 optimizes code that runs long and often, and a short run finishes mostly in the interpreter and Sparkplug.')
        : e('Never optimized', 'V8 never marked this function for optimization during the run: each call was too short or too rare for the tiering heuristics, or the run was too short for them.',
          'If it matters, check that warm-up and duration are long enough; a function that does little per call but is called from a hot loop is normally inlined into its optimized caller.');
  }
}

/** Readable explanations of TurboFan's inlining refusals. */
export function explainNotInlined(reason: string): Explanation {
  if (/recursi/.test(reason)) {
    return e('Not inlined: recursive', 'TurboFan never inlines a direct recursive call (a function calling itself), so every level is a real call.', 'For hot recursion, consider an iterative version with an explicit stack.');
  }
  if (/exceeds the inlining limit/.test(reason)) {
    return e('Not inlined: too large', `TurboFan did not inline it: ${reason}. Each call stays a real call.`, 'If the call is hot, split out the small fast path (the common case) into its own small function that can be inlined.');
  }
  return e('Not inlined', `TurboFan did not inline it: ${reason}.`, 'Usually nothing to do; inlining is an optimization, not a requirement.');
}

const PROTECTOR_TEXT: Record<string, { title: string; paths: string; cause: string }> = {
  NoElements: { title: 'Array.prototype or Object.prototype was modified', paths: 'array reads, holey arrays, spread, for-of and many Array built-ins', cause: 'elements were added to Array.prototype or Object.prototype, or the prototype of one of them was replaced (some runtimes and polyfills do this)' },
  NoElementsStructural: { title: 'Array.prototype or Object.prototype was modified', paths: 'array reads, holey arrays, spread, for-of and many Array built-ins', cause: 'Array.prototype or Object.prototype has indexed properties, or the prototype of one of them was replaced' },
  ArraySpecies: { title: 'Array species was changed', paths: 'Array.prototype.map, filter, slice, splice and concat', cause: 'Array.prototype.constructor or Array[Symbol.species] was changed, or an Array subclass was used with species' },
  ArrayIterator: { title: 'The array iterator was modified', paths: 'for-of, spread and destructuring over arrays', cause: 'Array.prototype[Symbol.iterator] or the array iterator\'s next() was replaced' },
  MapIterator: { title: 'The Map iterator was modified', paths: 'for-of and spread over Maps', cause: 'Map.prototype[Symbol.iterator] or the Map iterator\'s next() was replaced' },
  SetIterator: { title: 'The Set iterator was modified', paths: 'for-of and spread over Sets', cause: 'Set.prototype[Symbol.iterator] or the Set iterator\'s next() was replaced' },
  StringIterator: { title: 'The String iterator was modified', paths: 'for-of and spread over strings', cause: 'String.prototype[Symbol.iterator] or the String iterator\'s next() was replaced' },
  PromiseSpecies: { title: 'Promise species was changed', paths: 'promise then/catch/finally and async functions', cause: 'Promise.prototype.constructor or Promise[Symbol.species] was changed' },
  RegExpSpecies: { title: 'RegExp species was changed', paths: 'RegExp methods such as split and matchAll', cause: 'RegExp.prototype.constructor or RegExp[Symbol.species] was changed' },
  TypedArraySpecies: { title: 'TypedArray species was changed', paths: 'typed array methods that create typed arrays (map, filter, slice, subarray)', cause: 'a typed array constructor or its Symbol.species was changed' },
  IsConcatSpreadable: { title: 'Symbol.isConcatSpreadable was used', paths: 'Array.prototype.concat', cause: 'an object got a Symbol.isConcatSpreadable property' },
};

/** Run-wide findings from V8's protector cells (true = intact). Invalidation lasts for the process's life. */
export function protectorFindings(protectors: Record<string, boolean>): V8Finding[] {
  const out: V8Finding[] = [];
  for (const [name, intact] of Object.entries(protectors)) {
    const t = PROTECTOR_TEXT[name];
    if (intact !== false || !t) continue;
    out.push({
      id: `V8_PROTECTOR_${name.replace(/Structural$/, '').replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`,
      title: t.title,
      text: `V8's ${name.replace(/Structural$/, '')} protector is invalid in this process: ${t.cause}. V8 then stops taking its fast paths for ${t.paths} — for the rest of the process's life, in every function.`,
      fix: 'Find what modifies the built-in (search your code and dependencies for the change named above, e.g. Object.setPrototypeOf(Array.prototype, …) or Array.prototype[0] = …) and remove it or load it only where needed.',
    });
  }
  return out;
}
