/**
 * What every attribution step shares: the model, the scripts and their indexes, V8's inlining facts,
 * and the table of functions (the profile's, plus those that ran only inlined and so have no frame).
 */
import * as path from 'node:path';
import { classify, urlToFile } from '../profile/categories';
import { displayName, displayPosition } from '../profile/hotspots';
import type { ProfileModel } from '../profile/types';
import { normalizeFile } from '../v8/raw';
import type { RawV8Function, V8FunctionRef, V8RawSignals } from '../v8/types';
import type { Scripts, Unit } from './scripts';
import type { SourceIndex } from './sourceIndex';
import type { AttributedFunctionInfo } from './types';

const key = (file: string, line: number, column: number) => `${file}\n${line}\n${column}`;

/** A function found in a parsed file: the unit it was read from and its id there. */
export interface ParsedRef {
  unit: Unit;
  fn: number;
}

export class AttributionContext {
  readonly functions: AttributedFunctionInfo[];
  private readonly byPosition = new Map<string, number>();
  private readonly v8ByKey = new Map<string, RawV8Function>();
  private readonly parsed = new Map<number, ParsedRef | null>();

  constructor(readonly model: ProfileModel, readonly scripts: Scripts, readonly v8: V8RawSignals | undefined) {
    this.functions = model.functions.map((info, f) => {
      const pos = displayPosition(info);
      return { model: f, name: displayName(info), file: pos.file, line: pos.line, column: pos.column, url: info.url, category: info.category, package: info.package };
    });
    model.functions.forEach((info, f) => {
      if (info.url && info.line !== null) this.byPosition.set(key(normalizeFile(info.url), info.line, info.column ?? 0), f);
    });
    for (const r of v8?.functions ?? []) if (r.line > 0) this.v8ByKey.set(key(r.file, r.line, r.column), r);
  }

  /** V8's record of a model function (tier, inlining), matched by script and position. */
  v8Of(f: number): RawV8Function | undefined {
    const info = this.model.functions[f];
    if (!info?.url || info.line === null) return undefined;
    return this.v8ByKey.get(key(normalizeFile(info.url), info.line, info.column ?? 0));
  }

  /** The last line of a function V8 compiled (it printed the source), when known. */
  v8EndLine(ref: V8FunctionRef): number | undefined {
    return this.v8ByKey.get(key(ref.file, ref.line, ref.column))?.endLine;
  }

  /** The attribution id of a function V8 names (a model function when it has a frame, else a new entry). */
  async idOfV8Ref(ref: V8FunctionRef): Promise<number> {
    const existing = this.byPosition.get(key(ref.file, ref.line, ref.column));
    if (existing !== undefined) return existing;
    const url = ref.file.startsWith('/') ? `file://${ref.file}` : ref.file;
    const shown = ref.line > 0 ? await this.scripts.displayPoint(ref.file, ref.line, Math.max(0, ref.column - 1)) : { file: ref.file, line: null, column: null };
    return this.addFunction(key(ref.file, ref.line, ref.column), ref.name || '(anonymous)', url, shown.file, shown.line, shown.column);
  }

  /** The attribution id of a function found by parsing (generated coordinates: matched to a frame when it has one). */
  async idOfParsed(ref: ParsedRef): Promise<number> {
    const fn = ref.unit.index.functions[ref.fn];
    const file = ref.unit.index.file;
    if (ref.unit.coords === 'generated') {
      const existing = this.byPosition.get(key(file, fn.anchor.line, fn.anchor.column + 1));
      if (existing !== undefined) return existing;
      const shown = await this.scripts.displayPoint(file, fn.anchor.line, fn.anchor.column);
      return this.addFunction(key(file, fn.anchor.line, fn.anchor.column + 1), fn.name || '(anonymous)', `file://${file}`, shown.file, shown.line, shown.column);
    }
    // Display coordinates: match by the display position of the frames.
    const k = `display\n${key(file, fn.anchor.line, fn.anchor.column + 1)}`;
    const existing = this.byPosition.get(k);
    if (existing !== undefined) return existing;
    for (const f of this.functions) {
      if (f.model >= 0 && f.file === file && f.line === fn.anchor.line && f.column === fn.anchor.column + 1) {
        this.byPosition.set(k, f.model);
        return f.model;
      }
    }
    return this.addFunction(k, fn.name || '(anonymous)', `file://${file}`, file, fn.anchor.line, fn.anchor.column + 1);
  }

  private addFunction(k: string, name: string, url: string, file: string, line: number | null, column: number | null): number {
    const existing = this.byPosition.get(k);
    if (existing !== undefined) return existing;
    const classified = classify(name, url);
    const id = this.functions.length;
    this.functions.push({ model: -1, name, file, line, column, url, category: classified.category, package: classified.package });
    this.byPosition.set(k, id);
    return id;
  }

  /** The parsed form of a model function (cached); null when its source cannot be read or does not match. */
  async parsedOf(f: number): Promise<ParsedRef | null> {
    if (this.parsed.has(f)) return this.parsed.get(f)!;
    const found = await this.scripts.unitOfFunction(f);
    let ref: ParsedRef | null = null;
    if (found) {
      const fn = found.unit.index.functionAt(found.pos);
      if (fn >= 0 && namesAgree(this.model.functions[f].name, found.unit.index.functions[fn].name)) ref = { unit: found.unit, fn };
    }
    this.parsed.set(f, ref);
    return ref;
  }

  /** Parsed functions a function calls by name, resolved in its own file and through require()/import of relative paths. */
  async staticCallees(ref: ParsedRef, depth = 2): Promise<ParsedRef[]> {
    const out: ParsedRef[] = [];
    const seen = new Set<string>([`${ref.unit.index.file}#${ref.fn}`]);
    let frontier = [ref];
    for (let d = 0; d < depth && frontier.length && out.length < 64; d++) {
      const next: ParsedRef[] = [];
      for (const r of frontier) {
        for (const callee of await this.calleesOf(r)) {
          const id = `${callee.unit.index.file}#${callee.fn}`;
          if (seen.has(id)) continue;
          seen.add(id);
          out.push(callee);
          next.push(callee);
        }
      }
      frontier = next;
    }
    return out;
  }

  private async calleesOf(ref: ParsedRef): Promise<ParsedRef[]> {
    const index = ref.unit.index;
    const fn = index.functions[ref.fn];
    const names = new Set<string>();
    for (const c of fn.calls) for (const n of c.names) names.add(n);
    for (const c of fn.calls) for (const n of c.argNames) names.add(n);
    const out: ParsedRef[] = [];
    for (const name of names) {
      for (const id of index.definitions.get(name) ?? []) if (id > 0 && id !== ref.fn) out.push({ unit: ref.unit, fn: id });
      const binding = index.imports.get(name);
      if (binding) {
        const target = await this.resolveModule(ref.unit, binding.module);
        if (target) for (const id of exportedFunctions(target.index, binding.imported === '*' ? undefined : binding.imported)) out.push({ unit: target, fn: id });
      }
    }
    // `mod.fn()` on a namespace binding: the call's name is `fn`, the binding is `mod`.
    for (const [local, binding] of index.imports) {
      if (binding.imported !== '*' || names.has(local)) continue;
      const target = await this.resolveModule(ref.unit, binding.module);
      if (!target) continue;
      for (const name of names) for (const id of exportedFunctions(target.index, name)) out.push({ unit: target, fn: id });
    }
    return out;
  }

  /** A relative module specifier from `unit`'s file → the unit of that file (same coordinates), if it exists. */
  private async resolveModule(unit: Unit, specifier: string): Promise<Unit | undefined> {
    if (!specifier.startsWith('.') && !specifier.startsWith('/')) return undefined;
    const base = path.resolve(path.dirname(unit.index.file), specifier);
    const candidates = unit.coords === 'display'
      ? [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}.js`, `${base}/index.js`]
      : [base, `${base}.js`, `${base}.cjs`, `${base}.mjs`, `${base}/index.js`];
    for (const c of candidates) {
      const index = unit.coords === 'generated' ? await this.scripts.generatedIndex(c) : await this.scripts.sourcesIndex(c);
      if (index) return { index, coords: unit.coords };
    }
    return undefined;
  }

  /** The parsed function at a V8 position (generated coordinates), when its script is readable. */
  async parsedAtV8(ref: V8FunctionRef): Promise<ParsedRef | undefined> {
    if (!ref.file.startsWith('/') || ref.line <= 0) return undefined;
    const index = await this.scripts.generatedIndex(ref.file);
    if (!index) return undefined;
    const fn = index.functionAt({ line: ref.line, column: Math.max(0, ref.column - 1) });
    return fn > 0 ? { unit: { index, coords: 'generated' }, fn } : undefined;
  }

  /** A file path as V8 names the script of a model function. */
  scriptFile(f: number): string {
    return urlToFile(this.model.functions[f].url);
  }
}

/** Function ids a module exports under `name` (every exported function when name is undefined, capped). */
function exportedFunctions(index: SourceIndex, name: string | undefined): number[] {
  const out: number[] = [];
  const add = (target: number | string | undefined) => {
    if (typeof target === 'number') out.push(target);
    else if (typeof target === 'string') for (const id of index.definitions.get(target) ?? []) if (id > 0) out.push(id);
  };
  if (name === undefined) {
    for (const target of index.exports.values()) add(target);
    return out.slice(0, 32);
  }
  add(index.exports.get(name));
  // A class exported whole: its methods are reached as `instance.name()`.
  if (!out.length) for (const id of index.definitions.get(name) ?? []) if (id > 0) out.push(id);
  return out;
}

/** V8's name and the parsed name denote the same function (V8 may prefix `obj.`, `get `, `bound `…). */
export function namesAgree(v8Name: string, parsedName: string): boolean {
  if (!v8Name || !parsedName) return true;
  return lastSegment(v8Name) === lastSegment(parsedName);
}

export function lastSegment(name: string): string {
  const bare = name.replace(/^(get|set|bound|async) /, '').replace(/^(get|set|bound|async) /, '');
  const dot = bare.lastIndexOf('.');
  return dot >= 0 ? bare.slice(dot + 1) : bare;
}
