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
import type { SourceFile } from './sourceFile';
import type { ParsedFunction } from './sourceIndex';
import type { AttributedFunctionInfo } from './types';

const key = (file: string, line: number, column: number) => `${file}\n${line}\n${column}`;

/** A function found in a parsed file: the unit it was read from and the function. */
export interface ParsedRef {
  unit: Unit;
  fn: ParsedFunction;
}

/** The same function (same file, same start). */
export const sameParsed = (a: ParsedRef, b: ParsedRef) => a.unit.file === b.unit.file && a.fn.start === b.fn.start && a.fn.end === b.fn.end;

/** `inner` is a function nested in `outer` (same file, inside its extent). */
export function isInside(inner: ParsedRef, outer: ParsedRef): boolean {
  return inner.unit.file === outer.unit.file && inner.fn.start >= outer.fn.start && inner.fn.end <= outer.fn.end && !(inner.fn.start === outer.fn.start && inner.fn.end === outer.fn.end);
}

export class AttributionContext {
  readonly functions: AttributedFunctionInfo[];
  private readonly byPosition = new Map<string, number>();
  private byPositionBuilt = false;
  private readonly v8ByKey = new Map<string, RawV8Function>();
  private readonly parsed = new Map<number, ParsedRef | null>();

  constructor(readonly model: ProfileModel, readonly scripts: Scripts, readonly v8: V8RawSignals | undefined) {
    this.functions = model.functions.map((info, f) => {
      const pos = displayPosition(info);
      return { model: f, name: displayName(info), file: pos.file, line: pos.line, column: pos.column, url: info.url, category: info.category, package: info.package, ...(info.unavailableSource ? { sourceNotInstalled: info.unavailableSource } : {}) };
    });
    for (const r of v8?.functions ?? []) if (r.line > 0) this.v8ByKey.set(key(r.file, r.line, r.column), r);
  }

  /** Model functions by script and position, built when first needed (most reports never need it). */
  private get positions(): Map<string, number> {
    if (!this.byPositionBuilt) {
      this.byPositionBuilt = true;
      this.model.functions.forEach((info, f) => {
        if (info.url && info.line !== null) this.byPosition.set(key(normalizeFile(info.url), info.line, info.column ?? 0), f);
      });
    }
    return this.byPosition;
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
    const existing = this.positions.get(key(ref.file, ref.line, ref.column));
    if (existing !== undefined) return existing;
    const url = ref.file.startsWith('/') ? `file://${ref.file}` : ref.file;
    const shown = ref.line > 0 ? await this.scripts.displayPoint(ref.file, ref.line, Math.max(0, ref.column - 1)) : { file: ref.file, line: null, column: null };
    return this.addFunction(key(ref.file, ref.line, ref.column), ref.name || '(anonymous)', url, shown.file, shown.line, shown.column, ref.line > 0 ? { file: ref.file, line: ref.line, column: ref.column } : undefined);
  }

  /** The attribution id of a function found by parsing (generated coordinates: matched to a frame when it has one). */
  async idOfParsed(ref: ParsedRef): Promise<number> {
    const fn = ref.fn;
    const file = ref.unit.file.file;
    if (ref.unit.coords === 'generated') {
      const existing = this.positions.get(key(file, fn.anchor.line, fn.anchor.column + 1));
      if (existing !== undefined) return existing;
      const shown = await this.scripts.displayPoint(file, fn.anchor.line, fn.anchor.column);
      return this.addFunction(key(file, fn.anchor.line, fn.anchor.column + 1), fn.name || '(anonymous)', `file://${file}`, shown.file, shown.line, shown.column, { file, line: fn.anchor.line, column: fn.anchor.column + 1 });
    }
    // Display coordinates: match by the display position of the frames.
    const k = `display\n${key(file, fn.anchor.line, fn.anchor.column + 1)}`;
    const existing = this.positions.get(k);
    if (existing !== undefined) return existing;
    for (const f of this.functions) {
      if (f.model >= 0 && f.file === file && f.line === fn.anchor.line && f.column === fn.anchor.column + 1) {
        this.byPosition.set(k, f.model);
        return f.model;
      }
    }
    return this.addFunction(k, fn.name || '(anonymous)', `file://${file}`, file, fn.anchor.line, fn.anchor.column + 1);
  }

  private addFunction(k: string, name: string, url: string, file: string, line: number | null, column: number | null, generated?: AttributedFunctionInfo['generated']): number {
    const existing = this.positions.get(k);
    if (existing !== undefined) return existing;
    const classified = classify(name, url);
    const id = this.functions.length;
    this.functions.push({ model: -1, name, file, line, column, url, category: classified.category, package: classified.package, ...(generated ? { generated } : {}) });
    this.byPosition.set(k, id);
    return id;
  }

  /** The parsed form of a model function (cached); null when its source cannot be read or does not match. */
  async parsedOf(f: number): Promise<ParsedRef | null> {
    if (this.parsed.has(f)) return this.parsed.get(f)!;
    const found = await this.scripts.unitOfFunction(f);
    let ref: ParsedRef | null = null;
    if (found) {
      const fn = found.unit.file.functionAt(found.pos);
      if (fn && namesAgree(this.model.functions[f].name, fn.name)) ref = { unit: found.unit, fn };
    }
    this.parsed.set(f, ref);
    return ref;
  }

  /** Parsed functions a function calls by name, resolved in its own file and through require()/import of relative paths. */
  async staticCallees(ref: ParsedRef, depth = 2): Promise<ParsedRef[]> {
    const out: ParsedRef[] = [];
    const seen = new Set<string>([`${ref.unit.file.file}#${ref.fn.start}`]);
    let frontier = [ref];
    for (let d = 0; d < depth && frontier.length && out.length < 64; d++) {
      const next: ParsedRef[] = [];
      for (const r of frontier) {
        for (const callee of await this.calleesOf(r)) {
          const id = `${callee.unit.file.file}#${callee.fn.start}`;
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
    const file = ref.unit.file;
    const fn = ref.fn;
    const names = new Set<string>();
    for (const c of fn.calls) for (const n of c.names) names.add(n);
    for (const c of fn.calls) for (const n of c.argNames) names.add(n);
    const out: ParsedRef[] = [];
    const add = (unit: Unit, found: ParsedFunction) => {
      if (!(unit.file === file && found.start === fn.start)) out.push({ unit, fn: found });
    };
    const imports = file.imports;
    for (const name of names) {
      if (name === 'require' || name === 'super') continue;
      for (const found of file.definitionsOf(name)) add(ref.unit, found);
      const binding = imports.get(name);
      if (binding) {
        const target = await this.resolveModule(ref.unit, binding.module);
        if (target && binding.imported !== '*') for (const found of target.file.definitionsOf(binding.imported === 'default' ? name : binding.imported)) add(target, found);
      }
    }
    // `mod.fn()` on a namespace binding (`const mod = require('./mod')`, tsc's `mod_1`): `fn` in that module.
    for (const binding of imports.values()) {
      if (binding.imported !== '*') continue;
      const target = await this.resolveModule(ref.unit, binding.module);
      if (!target) continue;
      for (const name of names) for (const found of target.file.definitionsOf(name)) add(target, found);
    }
    return out;
  }

  /** A relative module specifier from `unit`'s file → the unit of that file (same coordinates), if it exists. */
  private async resolveModule(unit: Unit, specifier: string): Promise<Unit | undefined> {
    if (!specifier.startsWith('.') && !specifier.startsWith('/')) return undefined;
    const base = path.resolve(path.dirname(unit.file.file), specifier);
    const candidates = unit.coords === 'display'
      ? [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}.js`, `${base}/index.js`]
      : [base, `${base}.js`, `${base}.cjs`, `${base}.mjs`, `${base}/index.js`];
    for (const c of candidates) {
      const file = unit.coords === 'generated' ? await this.scripts.generatedFile(c) : await this.scripts.sourceFile(c);
      if (file) return { file, coords: unit.coords };
    }
    return undefined;
  }

  /** The parsed function at a V8 position (generated coordinates), when its script is readable. */
  async parsedAtV8(ref: V8FunctionRef): Promise<ParsedRef | undefined> {
    if (!ref.file.startsWith('/') || ref.line <= 0) return undefined;
    const file = await this.scripts.generatedFile(ref.file);
    if (!file) return undefined;
    const fn = file.functionAt({ line: ref.line, column: Math.max(0, ref.column - 1) });
    return fn && fn.parent !== -1 ? { unit: { file, coords: 'generated' }, fn } : undefined;
  }

  /** A file path as V8 names the script of a model function. */
  scriptFile(f: number): string {
    return urlToFile(this.model.functions[f].url);
  }
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
