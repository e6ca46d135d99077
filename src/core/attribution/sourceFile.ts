/**
 * One source file as attribution reads it: cheap by default, complete on demand. A function V8 reports
 * at an exact position is parsed on its own — its text runs from that position to its closing brace
 * (found by brackets.ts) — so the cost follows the hot code, not the size of the files it sits in. The
 * whole file is parsed only when something needs the file as a whole (which names it defines and
 * imports, a function whose extent cannot be found from its position alone).
 */
import { parse } from '@babel/parser';
import { findSourceMappingUrl } from '../profile/sourceMaps';
import { matchBracket, skipTrivia } from './brackets';
import {
  indexSource, lineOfOffset, lineStartsOf, pluginsFor, walkProgram,
  type AstNode, type ImportBinding, type ParsedFunction, type PositionMap, type SourceIndex, type SourcePos,
} from './sourceIndex';

/** Code (not whitespace or comment) characters of a parsed slice of the file. */
interface CodeMask {
  start: number;
  end: number;
  code: Uint8Array;
}

/** Files larger than this are not searched for definitions by name (see definitionsOf). */
const MAX_SEARCHED_BYTES = 256 * 1024;

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029;

export class SourceFile {
  readonly lineStarts: Int32Array;
  readonly lineCount: number;
  readonly sourceMappingUrl: string | null;
  private whole: SourceIndex | undefined;
  private readonly byAnchor = new Map<number, ParsedFunction | null>();
  private readonly masks: CodeMask[] = [];
  /** Something was parsed or looked up since this file was created or restored: worth saving. */
  dirty = false;
  /** JSX text is not something brackets.ts follows: such files are parsed whole. */
  private readonly slicing: boolean;

  constructor(readonly file: string, readonly text: string) {
    this.lineStarts = lineStartsOf(text);
    this.lineCount = this.lineStarts.length;
    this.sourceMappingUrl = findSourceMappingUrl(text);
    this.slicing = !/\.(jsx|tsx)$/i.test(file);
  }

  /** Whether the whole file has been parsed (tests check that hot functions alone did not need it). */
  get wholeParsed(): boolean {
    return this.whole !== undefined;
  }

  /** The whole file's index (parsed once, when first needed). */
  get index(): SourceIndex {
    return (this.whole ??= indexSource(this.file, this.text));
  }

  private readonly definitionCache = new Map<string, ParsedFunction[]>();
  private importCache: Map<string, ImportBinding> | undefined;

  /**
   * Functions named `name` in this file — `function name(`, a method `name(…) {`, `name = function (` or
   * `name = (…) =>`, `name: function (` — each parsed from its own text. Found by searching the text,
   * so asking costs a scan, not a parse of the whole file; a match that is not a function is dropped.
   */
  definitionsOf(name: string): ParsedFunction[] {
    const cached = this.definitionCache.get(name);
    if (cached) return cached;
    const out: ParsedFunction[] = [];
    // A bundle-sized file is not searched: a name in it matches too much to tell anything.
    if (this.text.length > MAX_SEARCHED_BYTES) return out;
    const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = new RegExp(
      `\\bfunction\\s*\\*?\\s*${n}\\s*(?:<[^(]*>)?\\s*(\\()` +
      `|(?:^|[\\s;{},*])(?:(?:static|async|get|set|public|private|protected|readonly|override)\\s+)*${n}\\s*(?:<[^(]*>)?\\s*(\\()[^()]*\\)\\s*(?::[^{;=]*)?\\{` +
      `|(?:^|[^\\w$.])${n}\\s*[:=]\\s*(?:async\\s*)?(?:function\\b[^(]*(\\()|(\\()[^()]*\\)\\s*(?::[^=;{]*)?=>)`,
      'gmd');
    for (const m of this.text.matchAll(re)) {
      const group = m.indices?.slice(1).find((g) => g !== undefined);
      if (!group) continue;
      const fn = this.functionAt(this.posOf(group[0]));
      if (!fn || out.includes(fn)) continue;
      if (!fn.name) fn.name = name;
      out.push(fn);
      if (out.length >= 8) break;
    }
    // A class: V8 names its constructor after it.
    for (const m of this.text.matchAll(new RegExp(`\\bclass\\s+${n}\\b[^{]*(\\{)`, 'gd'))) {
      const open = m.indices![1][0];
      const close = matchBracket(this.text, open);
      if (close < 0) continue;
      const ctor = /\bconstructor\s*\(/.exec(this.text.slice(open, close));
      if (!ctor) continue;
      const fn = this.functionAt(this.posOf(open + ctor.index + ctor[0].length - 1));
      if (fn && !out.includes(fn)) {
        fn.name = name;
        out.push(fn);
      }
    }
    this.definitionCache.set(name, out);
    this.dirty = true;
    return out;
  }

  /**
   * Local names bound by require() or import, to the module and the name taken from it ('*' = the whole
   * module). From the text (CommonJS, tsc's interop helpers, ES imports), without a parse.
   */
  get imports(): Map<string, ImportBinding> {
    if (this.importCache) return this.importCache;
    const out = new Map<string, ImportBinding>();
    const cjs = /\b(?:const|let|var)\s+([\w$]+|\{[^}]*\})\s*=\s*(?:(?:__importDefault|__importStar|_interopRequire\w*)\(\s*)?require\(\s*(['"])([^'"\n]+)\2\s*\)\s*\)?(?:\.([\w$]+))?/g;
    for (const m of this.text.matchAll(cjs)) {
      const [, binding, , module, member] = m;
      if (binding.startsWith('{')) for (const [imported, local] of destructured(binding, ':')) out.set(local, { module, imported });
      else out.set(binding, { module, imported: member ?? '*' });
    }
    const esm = /\bimport\s+(?:type\s+)?(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\}|\*\s*as\s+([\w$]+))?\s*from\s*(['"])([^'"\n]+)\4/g;
    for (const m of this.text.matchAll(esm)) {
      const [, def, named, namespace, , module] = m;
      if (def) out.set(def, { module, imported: 'default' });
      if (namespace) out.set(namespace, { module, imported: '*' });
      if (named) for (const [imported, local] of destructured(`{${named}}`, ' as ')) out.set(local, { module, imported });
    }
    this.dirty = true;
    return (this.importCache = out);
  }

  offsetOf(pos: SourcePos): number {
    return pos.line >= 1 && pos.line <= this.lineCount ? this.lineStarts[pos.line - 1] + pos.column : -1;
  }

  posOf(offset: number): SourcePos {
    const line = lineOfOffset(this.lineStarts, offset);
    return { line, column: offset - this.lineStarts[line - 1] };
  }

  /**
   * The function V8 reports at `pos` (the `(` of its parameters, or its single parameter), parsed from
   * its own text when its extent can be found, else from the whole file; undefined when none is there.
   */
  functionAt(pos: SourcePos): ParsedFunction | undefined {
    const at = this.offsetOf(pos);
    if (at < 0 || at >= this.text.length) return undefined;
    const known = this.byAnchor.get(at);
    if (known !== undefined) return known ?? undefined;
    this.dirty = true;
    const sliced = this.slicing ? this.parseSlice(at) : undefined;
    if (sliced) {
      this.byAnchor.set(at, sliced);
      return sliced;
    }
    // Only what can be a function's start is worth parsing the whole file for: the module (offset 0),
    // a class without a constructor, an arrow with an expression body. Anything else means the file
    // is not the one that ran (edited since): nothing is there.
    if (at !== 0 && !/^(\(|class\b|[A-Za-z_$][\w$]*\s*=>)/.test(this.text.slice(at, at + 256))) {
      this.byAnchor.set(at, null);
      return undefined;
    }
    const index = this.index;
    const id = index.functionAt(pos);
    const found = id >= 0 ? index.functions[id] : undefined;
    this.byAnchor.set(at, found ?? null);
    return found;
  }

  /** True when line `line` has code, not only whitespace and comments. */
  hasCode(line: number): boolean {
    if (line < 1 || line > this.lineCount) return false;
    const a = this.lineStarts[line - 1];
    const b = line < this.lineCount ? this.lineStarts[line] : this.text.length;
    // From the parsed functions' masks when they cover every non-blank character of the line.
    let mask: CodeMask | undefined;
    for (let i = a; i < b; i++) {
      if (isSpace(this.text.charCodeAt(i))) continue;
      if (!mask || i < mask.start || i >= mask.end) mask = this.masks.find((m) => i >= m.start && i < m.end);
      if (!mask) return this.index.hasCode(line);
      if (mask.code[i - mask.start]) return true;
    }
    return false;
  }

  /** True when every code character of `line` in `fn` is its header or closing brace (entry/exit code only). */
  isStructuralLine(fn: ParsedFunction, line: number): boolean {
    if (fn.headerEnd < 0 || line < 1 || line > this.lineCount) return false;
    const a = this.lineStarts[line - 1];
    const b = line < this.lineCount ? this.lineStarts[line] : this.text.length;
    let any = false;
    for (let i = Math.max(a, fn.start); i < Math.min(b, fn.end); i++) {
      if (!this.isCodeChar(i)) continue;
      any = true;
      if (i < fn.headerEnd || (fn.closingStart >= 0 && i >= fn.closingStart)) continue;
      return false;
    }
    return any;
  }

  private isCodeChar(i: number): boolean {
    for (const m of this.masks) if (i >= m.start && i < m.end) return m.code[i - m.start] === 1;
    return this.index.isCode(i);
  }

  /**
   * Parses the function whose parameters start at `at`: `(params) {…}` (a function, method or accessor),
   * `(params) => {…}` or `x => {…}`, with a TypeScript return type between. Undefined when the text
   * there is not that (an expression-bodied arrow, a class without a constructor, something unusual).
   */
  private parseSlice(at: number): ParsedFunction | undefined {
    const text = this.text;
    let paramsEnd: number;
    if (text.charCodeAt(at) === 40) {
      paramsEnd = matchBracket(text, at);
      if (paramsEnd < 0) return undefined;
    } else {
      const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(at, at + 256));
      if (!m) return undefined;
      paramsEnd = at + m[0].length - 1;
      if (!text.startsWith('=>', skipTrivia(text, paramsEnd + 1))) return undefined;
    }
    // Between the parameters and the body: a TypeScript return type, then `{` or `=> {`.
    let p = skipTrivia(text, paramsEnd + 1);
    let typeStart = -1;
    let typeEnd = -1;
    if (text.charCodeAt(p) === 58) { // ':'
      typeStart = p;
      p = skipReturnType(text, p + 1);
      if (p < 0) return undefined;
      typeEnd = p;
      p = skipTrivia(text, p);
    }
    const arrow = text.startsWith('=>', p);
    const bodyStart = arrow ? skipTrivia(text, p + 2) : p;
    if (text.charCodeAt(bodyStart) !== 123) return undefined; // expression-bodied arrows: parse the whole file
    const bodyEnd = matchBracket(text, bodyStart);
    if (bodyEnd < 0) return undefined;

    // The slice, wrapped so it parses on its own; the return type is blanked (same length, same lines).
    const head = arrow ? '(async ' : '(async function* ';
    let slice = text.slice(at, bodyEnd + 1);
    if (typeStart >= 0) slice = slice.slice(0, typeStart - at) + slice.slice(typeStart - at, typeEnd - at).replace(/[^\r\n\u2028\u2029]/g, ' ') + slice.slice(typeEnd - at);
    const snippet = `${head}${slice})`;
    let ast: { program: AstNode; comments?: AstNode[] };
    try {
      ast = parse(snippet, {
        sourceType: 'unambiguous', errorRecovery: true, attachComment: false, allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true,
        allowSuperOutsideMethod: true, allowImportExportEverywhere: true, plugins: pluginsFor(this.file),
      }) as unknown as { program: AstNode; comments?: AstNode[] };
    } catch {
      return undefined;
    }
    const shift = at - head.length;
    const map: PositionMap = {
      offset: (o) => Math.min(Math.max(o + shift, at), bodyEnd + 1),
      pos: (o) => this.posOf(Math.min(Math.max(o + shift, at), bodyEnd)),
    };
    const functions: ParsedFunction[] = [];
    walkProgram(ast.program, snippet, map, functions, new Map(), new Map(), new Map());
    // functions[0] is the function itself; the rest are nested in it.
    const fn = functions[0];
    if (!fn || fn.anchor.line !== this.posOf(at).line) return undefined;
    fn.anchor = this.posOf(at);
    fn.startLine = fn.anchor.line;
    // The slice was parsed as an anonymous function: its name is in the header before `(`.
    if (!fn.name) fn.name = headerName(text.slice(this.lineStarts[fn.anchor.line - 1], at), () => text.slice(Math.max(0, at - 64 * 1024), at));

    // Code mask of the slice: everything but whitespace and comments.
    const code = new Uint8Array(bodyEnd + 1 - at);
    for (let i = at; i <= bodyEnd; i++) code[i - at] = isSpace(text.charCodeAt(i)) ? 0 : 1;
    for (const c of ast.comments ?? []) code.fill(0, Math.max(0, c.start + shift - at), Math.max(0, c.end + shift - at));
    // The header line's text before `(` is code too (`function quote`, `async method`).
    const lineStart = this.lineStarts[fn.anchor.line - 1];
    const headerCode = /\S/.test(text.slice(lineStart, at));
    this.masks.push({ start: at, end: bodyEnd + 1, code });
    if (headerCode) this.masks.push({ start: lineStart, end: at, code: Uint8Array.from(text.slice(lineStart, at), (ch) => (isSpace(ch.charCodeAt(0)) ? 0 : 1)) });
    // Nested functions are known by their anchors too, so asking for them costs nothing more.
    for (const nested of functions.slice(1)) {
      const k = this.offsetOf(nested.anchor);
      if (!this.byAnchor.has(k)) this.byAnchor.set(k, nested);
    }
    return fn;
  }
}

export interface SavedSourceFile {
  v: typeof SAVED_VERSION;
  functions: [number, SavedFunction | null][];
  masks: [number, number, number[]][];
  definitions: [string, number[]][];
  imports: [string, string, string][] | null;
}
type SavedFunction = Omit<ParsedFunction, 'members'> & { members: [string, number[]][] };
// 2: functions parsed from a slice carry their header's name (version 1 saved them unnamed).
const SAVED_VERSION = 2;

/** What was learnt of a file, as JSON (the parse cache keeps it by content, so the next run parses nothing again). */
export function saveSourceFile(source: SourceFile): SavedSourceFile {
  const internal = source as unknown as { byAnchor: Map<number, ParsedFunction | null>; masks: CodeMask[]; definitionCache: Map<string, ParsedFunction[]>; importCache?: Map<string, ImportBinding> };
  const anchorOf = (fn: ParsedFunction) => source.offsetOf(fn.anchor);
  return {
    v: SAVED_VERSION,
    functions: [...internal.byAnchor].map(([at, fn]) => [at, fn ? { ...fn, members: [...fn.members] } : null]),
    masks: internal.masks.map((m) => [m.start, m.end, runsOf(m.code)]),
    definitions: [...internal.definitionCache].map(([name, fns]) => [name, fns.map(anchorOf)]),
    imports: internal.importCache ? [...internal.importCache].map(([local, b]) => [local, b.module, b.imported]) : null,
  };
}

/** A file with what an earlier run learnt of it (undefined when the saved form does not fit this version or text). */
export function restoreSourceFile(file: string, text: string, saved: SavedSourceFile): SourceFile | undefined {
  if (saved?.v !== SAVED_VERSION || !Array.isArray(saved.functions)) return undefined;
  const source = new SourceFile(file, text);
  const internal = source as unknown as { byAnchor: Map<number, ParsedFunction | null>; masks: CodeMask[]; definitionCache: Map<string, ParsedFunction[]>; importCache?: Map<string, ImportBinding> };
  for (const [at, fn] of saved.functions) internal.byAnchor.set(at, fn ? { ...fn, members: new Map(fn.members) } : null);
  for (const [start, end, runs] of saved.masks) {
    if (end < start || end > text.length) return undefined;
    internal.masks.push({ start, end, code: fromRuns(runs, end - start) });
  }
  for (const [name, anchors] of saved.definitions) internal.definitionCache.set(name, anchors.map((a) => internal.byAnchor.get(a)).filter((f): f is ParsedFunction => !!f));
  if (saved.imports) internal.importCache = new Map(saved.imports.map(([local, module, imported]) => [local, { module, imported }]));
  return source;
}

/** Alternating run lengths of 0s and 1s, starting with 0s. */
function runsOf(code: Uint8Array): number[] {
  const runs: number[] = [];
  let value = 0;
  let length = 0;
  for (const c of code) {
    if (c === value) { length++; continue; }
    runs.push(length);
    value = c;
    length = 1;
  }
  runs.push(length);
  return runs;
}

function fromRuns(runs: number[], size: number): Uint8Array {
  const code = new Uint8Array(size);
  let at = 0;
  runs.forEach((length, i) => {
    if (i % 2 === 1) code.fill(1, at, Math.min(size, at + length));
    at += length;
  });
  return code;
}

const NOT_A_NAME = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'async', 'await', 'yield', 'typeof', 'new', 'in', 'of', 'do', 'else']);

/**
 * The name a header gives the function whose `(` follows it, as the whole-file parse names it:
 * `function name`, `name = function`, `name = (` / `name: (` (arrows), a method `async name`, an
 * accessor `get name`, a constructor by its class (the nearest `class X` in the text `before()` gives,
 * asked only for a constructor); '' for anything else (`items.map(`).
 */
export function headerName(header: string, before: () => string = () => ''): string {
  const m = /(?:\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)|(?:^|[^\w$.])([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s*)?(?:function\b\s*\*?\s*)?|(?:^|[\s;{},*])((?:(?:static|async|get|set|public|private|protected|readonly|override)\s+)*)([A-Za-z_$][\w$]*))\s*(?:<[^(]*>)?\s*$/.exec(header);
  if (!m) return '';
  const plain = m[1] ?? m[2];
  if (plain !== undefined) return NOT_A_NAME.has(plain) ? '' : plain;
  const name = m[4];
  if (NOT_A_NAME.has(name)) return '';
  if (name === 'constructor') return [...before().matchAll(/\bclass\s+([A-Za-z_$][\w$]*)/g)].pop()?.[1] ?? '';
  const accessor = /\b(get|set)\s+$/.exec(m[3] ?? '');
  return accessor ? `${accessor[1]} ${name}` : name;
}

/**
 * Past a TypeScript return type starting after `:` at `i`: to the `{` of the body or the `=>` of an
 * arrow. An object type literal (`: { a: number }`) is skipped whole: a `{` is the body only after
 * something that can end a type (a name, `>`, `]`, `)`, a literal).
 */
function skipReturnType(text: string, i: number): number {
  let p = skipTrivia(text, i);
  let prev = 58; // ':'
  for (let guard = 0; guard < 10_000 && p < text.length; guard++) {
    const c = text.charCodeAt(p);
    if (c === 123) { // '{'
      const endsType = (prev >= 48 && prev <= 57) || (prev >= 65 && prev <= 90) || (prev >= 97 && prev <= 122) || prev === 95 || prev === 36 || prev === 62 || prev === 93 || prev === 41 || prev === 39 || prev === 34;
      if (endsType) return p;
      const end = matchBracket(text, p);
      if (end < 0) return -1;
      p = skipTrivia(text, end + 1);
      prev = 125;
      if (text.charCodeAt(p) === 123) return p; // `: {…} {` — the second brace is the body
      continue;
    }
    if (c === 61 && text.charCodeAt(p + 1) === 62) { // '=>'
      if (prev === 41) { // `(…) => T` is a function type; after a complete type it is the arrow
        p = skipTrivia(text, p + 2);
        prev = 62;
        continue;
      }
      return p;
    }
    if (c === 40 || c === 91) { // ( [
      const end = matchBracket(text, p);
      if (end < 0) return -1;
      p = skipTrivia(text, end + 1);
      prev = text.charCodeAt(end);
      continue;
    }
    if (c === 60) { // '<' type arguments: to the matching '>'
      let depth = 0;
      let q = p;
      for (; q < text.length; q++) {
        const d = text.charCodeAt(q);
        if (d === 60) depth++;
        else if (d === 62 && text.charCodeAt(q - 1) !== 61) { depth--; if (depth === 0) break; }
      }
      if (q >= text.length) return -1;
      p = skipTrivia(text, q + 1);
      prev = 62;
      continue;
    }
    if (c === 39 || c === 34 || c === 96) return -1; // literal types: leave to the whole-file parse
    prev = c;
    p = skipTrivia(text, p + 1);
  }
  return -1;
}

/** `{ a, b: c }` (or `{ a, b as c }`) → [imported, local] pairs. */
function destructured(pattern: string, rename: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of pattern.slice(1, -1).split(',')) {
    const [imported, local] = part.split(rename).map((x) => x.trim().replace(/^type\s+/, ''));
    if (/^[\w$]+$/.test(imported ?? '')) out.push([imported, /^[\w$]+$/.test(local ?? '') ? local : imported]);
  }
  return out;
}
