/**
 * What a script's source says about where time can go: its functions (ranges, the position V8 reports
 * for each), the calls each function makes directly (callee names, call-site lines, callbacks passed),
 * which lines hold code, and how names reach other modules (require/import). Built once per file content
 * with @babel/parser, which reads JavaScript and TypeScript (with decorators and JSX) in one parser and
 * keeps going past syntax errors — user code is whatever the user has, half-edited files included.
 */
import { parse, type ParserPlugin } from '@babel/parser';
import { findSourceMappingUrl } from '../profile/sourceMaps';
import { lineOfOffset, lineStartsOf } from '../common/textLines';

export { lineOfOffset, lineStartsOf };

/** 1-based line, 0-based column (as Babel and source maps count). */
export interface SourcePos {
  line: number;
  column: number;
}

export interface CallSite {
  /** Names a callee frame may carry for this call: `foo` for `foo()`, `a.b.foo()`, `new foo()`, `` foo`…` ``. */
  names: string[];
  /** Where the call is (the callee's name; its line is the line that "makes the call"). */
  line: number;
  column: number;
  /** Functions defined in the arguments (callbacks), by function id. */
  argFunctions: number[];
  /** Functions passed by name (`items.forEach(handle)`, `emitter.on('x', this.onX)`). */
  argNames: string[];
  /** Source offsets of the whole call expression, to find calls that contain a definition. */
  start: number;
  end: number;
}

export interface ParsedFunction {
  id: number;
  /** The name V8 would most likely give it ('' when none can be inferred); the program is ''. */
  name: string;
  /** Enclosing function id; -1 for the program. */
  parent: number;
  /** Where V8 puts the function: the `(` of its parameters, or its first parameter (`x => …`). */
  anchor: SourcePos;
  start: number;
  end: number;
  startLine: number;
  endLine: number;
  /** Offsets of the header (up to and including the body's `{`) and of the closing `}`; -1 if none. */
  headerEnd: number;
  closingStart: number;
  /** Calls made directly in this function (not in functions nested in it). */
  calls: CallSite[];
  /** Property reads not called (`obj.total`): where a getter named `get total` may run. */
  members: Map<string, number[]>;
}

export type ImportBinding = { module: string; imported: string };

export interface SourceIndex {
  file: string;
  /** Index 0 is the program (module top level). */
  functions: ParsedFunction[];
  /** Line count of the file. */
  lineCount: number;
  /** Syntax errors Babel recovered from (positions may then be off near them). */
  errorCount: number;
  /** True when line `line` (1-based) has code, not only whitespace and comments. */
  hasCode(line: number): boolean;
  /** True when the character at `offset` is code (not whitespace, not in a comment). */
  isCode(offset: number): boolean;
  /** The function whose anchor is exactly `pos`, else the innermost one containing it; -1 when none. */
  functionAt(pos: SourcePos): number;
  /** True when every code character of `line` in `fn` is its header or closing brace (entry/exit code only). */
  isStructuralLine(fn: number, line: number): boolean;
  /** Top-level and class-member definitions by name (several for a common method name). */
  definitions: Map<string, number[]>;
  /** Local names bound by require()/import, to the module specifier and the name taken from it ('*' = the whole module). */
  imports: Map<string, ImportBinding>;
  /** Names this module exports → local names or function ids. */
  exports: Map<string, number | string>;
  /** The file's own `//# sourceMappingURL=` value, to tell whether V8 ran this text or code compiled in memory. */
  sourceMappingUrl: string | null;
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod']);
const CALL_TYPES = new Set(['CallExpression', 'OptionalCallExpression', 'NewExpression', 'TaggedTemplateExpression']);
const SKIP_KEYS = new Set(['loc', 'start', 'end', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'range', 'typeAnnotation', 'returnType', 'typeParameters', 'superTypeParameters', 'decorators']);
/** Per node type, the keys that may hold child nodes (Babel gives every node of a type the same keys). */
const CHILD_KEYS = new Map<string, string[]>();
const WRAPPERS = new Set(['TSNonNullExpression', 'TSAsExpression', 'TSSatisfiesExpression', 'TSTypeAssertion', 'ParenthesizedExpression', 'TypeCastExpression', 'AwaitExpression']);

// Babel's AST as plain data: walking it generically keeps this file free of @babel/types' weight.
export type AstNode = { type: string; start: number; end: number; loc: { start: { line: number; column: number } }; [key: string]: unknown };

export function pluginsFor(file: string): ParserPlugin[] {
  const lower = file.toLowerCase();
  if (/\.(c|m)?tsx$/.test(lower)) return ['typescript', 'jsx', 'decorators-legacy'];
  if (/\.(c|m)?ts$/.test(lower)) return ['typescript', 'decorators-legacy'];
  return ['jsx', 'decorators-legacy', 'classProperties', 'importAttributes'];
}

/** The name an expression denotes for call matching: `foo`, `a.b.foo` → `foo`, `(0, m.foo)` → `foo`. */
function nameOf(node: AstNode | null | undefined): string | undefined {
  let n = node;
  while (n && WRAPPERS.has(n.type)) n = n.expression as AstNode;
  if (!n) return undefined;
  switch (n.type) {
    case 'Identifier':
      return n.name as string;
    case 'PrivateName':
      return `#${(n.id as AstNode).name as string}`;
    case 'StringLiteral':
      return n.value as string;
    case 'MemberExpression':
    case 'OptionalMemberExpression': {
      const p = n.property as AstNode;
      if (!n.computed || p.type === 'StringLiteral') return nameOf(p);
      return undefined;
    }
    case 'SequenceExpression': {
      const list = n.expressions as AstNode[];
      return nameOf(list[list.length - 1]);
    }
    case 'Super':
      return 'super';
    default:
      return undefined;
  }
}

/** The node whose position marks the call's line: the callee's name (for `a\n .b()` that is `.b`'s line). */
function namePosNode(node: AstNode): AstNode {
  let n = node;
  while (n && WRAPPERS.has(n.type)) n = n.expression as AstNode;
  if (n && (n.type === 'MemberExpression' || n.type === 'OptionalMemberExpression')) return n.property as AstNode;
  if (n && n.type === 'SequenceExpression') {
    const list = n.expressions as AstNode[];
    return namePosNode(list[list.length - 1]);
  }
  return n ?? node;
}

function identityMap(lineStarts: Int32Array): PositionMap {
  return {
    offset: (o) => o,
    pos: (o) => {
      const line = lineOfOffset(lineStarts, o);
      return { line, column: o - lineStarts[line - 1] };
    },
  };
}

/** Builds the index of one file's text. Never throws: an unparsable file gives an index with only the program. */
export function indexSource(file: string, text: string): SourceIndex {
  const lineStarts = lineStartsOf(text);
  const lineCount = lineStarts.length;
  // Code mask: a copy of the text with comments blanked, so "has code" and "structural" are plain scans.
  const codeMask = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    codeMask[i] = c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xfeff || c === 0xa0 ? 0 : 1;
  }
  // A hashbang line is not code V8 runs.
  if (text.startsWith('#!')) for (let i = 0; i < text.length && text.charCodeAt(i) !== 10; i++) codeMask[i] = 0;

  const functions: ParsedFunction[] = [{
    id: 0, name: '', parent: -1, anchor: { line: 1, column: 0 }, start: 0, end: text.length, startLine: 1, endLine: lineCount,
    headerEnd: -1, closingStart: -1, calls: [], members: new Map(),
  }];
  const definitions = new Map<string, number[]>();
  const imports = new Map<string, ImportBinding>();
  const exports = new Map<string, number | string>();
  let errorCount = 0;

  let ast: { program: AstNode; comments?: AstNode[]; errors?: unknown[] } | undefined;
  const parseText = (source: string) => parse(source, {
    sourceType: 'unambiguous', errorRecovery: true, attachComment: false, allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true, allowSuperOutsideMethod: true, allowUndeclaredExports: true, plugins: pluginsFor(file),
  }) as unknown as typeof ast;
  try {
    ast = parseText(text);
  } catch (err) {
    errorCount = 1;
    // An error Babel cannot recover from: keep what comes before its line (blanked after it, so every
    // offset and line stays where it was).
    // Cuts are tried at the starts of top-level statements (a line starting in column 0) before it.
    const pos = (err as { pos?: number }).pos;
    let line = typeof pos === 'number' ? lineOfOffset(lineStarts, Math.min(pos, text.length)) : 0;
    // Bounded: each try parses the file again, so big files get few.
    const maxTries = text.length > 256 * 1024 ? 2 : 8;
    for (let tries = 0; !ast && line > 1 && tries < maxTries; line--) {
      const cut = lineStarts[line - 1];
      if (!/[^\s}]/.test(text.charAt(cut))) continue;
      tries++;
      try {
        ast = parseText(text.slice(0, cut) + text.slice(cut).replace(/[^\r\n\u2028\u2029]/g, ' '));
        for (let i = cut; i < codeMask.length; i++) codeMask[i] = 0;
      } catch {
        ast = undefined;
      }
    }
  }
  if (ast) {
    errorCount += ast.errors?.length ?? 0;
    for (const c of ast.comments ?? []) codeMask.fill(0, c.start, c.end);
    walkProgram(ast.program, text, identityMap(lineStarts), functions, definitions, imports, exports);
  }

  const posToOffset = (pos: SourcePos) => (pos.line >= 1 && pos.line <= lineCount ? lineStarts[pos.line - 1] + pos.column : -1);
  const lineRange = (line: number): [number, number] => [lineStarts[line - 1], line < lineCount ? lineStarts[line] : text.length];
  const anchors = new Map<number, number>();
  for (const f of functions) {
    const at = posToOffset(f.anchor);
    if (!anchors.has(at)) anchors.set(at, f.id);
  }
  // Functions sorted by start, for containment lookups (few hundred per file: a scan is enough).
  return {
    file, functions, lineCount, errorCount, definitions, imports, exports, sourceMappingUrl: findSourceMappingUrl(text),
    isCode(offset) {
      return codeMask[offset] === 1;
    },
    hasCode(line) {
      if (line < 1 || line > lineCount) return false;
      const [a, b] = lineRange(line);
      for (let i = a; i < b; i++) if (codeMask[i]) return true;
      return false;
    },
    functionAt(pos) {
      const at = posToOffset(pos);
      if (at < 0) return -1;
      const exact = anchors.get(at);
      if (exact !== undefined) return exact;
      let best = -1;
      for (const f of functions) {
        if (f.start <= at && at < f.end && (best < 0 || f.end - f.start < functions[best].end - functions[best].start)) best = f.id;
      }
      return best;
    },
    isStructuralLine(fn, line) {
      const f = functions[fn];
      if (!f || f.headerEnd < 0 || line < 1 || line > lineCount) return false;
      const [a, b] = lineRange(line);
      let any = false;
      for (let i = Math.max(a, f.start); i < Math.min(b, f.end); i++) {
        if (!codeMask[i]) continue;
        any = true;
        if (i < f.headerEnd || (f.closingStart >= 0 && i >= f.closingStart)) continue;
        return false;
      }
      return any;
    },
  };
}

/** Offsets of the parsed text → offsets and positions in the file (identity for a whole-file parse). */
export interface PositionMap {
  offset(o: number): number;
  pos(o: number): SourcePos;
}

export function walkProgram(
  program: AstNode,
  text: string,
  map: PositionMap,
  functions: ParsedFunction[],
  definitions: Map<string, number[]>,
  imports: Map<string, ImportBinding>,
  exports: Map<string, number | string>,
): void {
  /** Function id per function node start, so callbacks in arguments can be named by id. */
  const idAt = new Map<number, number>();
  /** Calls whose argument functions are resolved after the walk (ids exist only once visited). */
  const pendingArgs: { call: CallSite; starts: number[] }[] = [];

  const define = (name: string | undefined, id: number) => {
    if (!name) return;
    const list = definitions.get(name);
    if (list) list.push(id);
    else definitions.set(name, [id]);
  };

  const anchorOf = (node: AstNode): SourcePos => {
    const params = node.params as AstNode[];
    if (node.type === 'ArrowFunctionExpression' && params.length === 1 && text.charCodeAt(params[0].start) !== 40 && !/\(\s*$/.test(text.slice(node.start, params[0].start))) {
      return map.pos(params[0].start);
    }
    // The first `(` after the name (or the start): skips `async`, `function`, `*`, `get`, type parameters.
    const from = ((node.key as AstNode | undefined) ?? (node.id as AstNode | undefined))?.end ?? node.start;
    const body = node.body as AstNode;
    const paren = text.indexOf('(', from);
    const at = paren >= 0 && paren < body.start ? paren : node.start;
    return map.pos(at);
  };

  const visitFunction = (node: AstNode, parent: number, inferredName: string | undefined): number => {
    const body = node.body as AstNode;
    const id = functions.length;
    const block = body.type === 'BlockStatement';
    let name = (node.kind === 'constructor' ? inferredName : undefined) ?? nameOf(node.id as AstNode) ?? nameOf(node.key as AstNode) ?? inferredName ?? '';
    if (node.kind === 'get' || node.kind === 'set') name = `${node.kind as string} ${name}`;
    functions.push({
      id, name, parent, anchor: anchorOf(node), start: map.offset(node.start), end: map.offset(node.end),
      startLine: map.pos(node.start).line, endLine: map.pos(Math.max(node.start, node.end - 1)).line,
      headerEnd: map.offset(block ? body.start + 1 : body.start), closingStart: block ? map.offset(body.end - 1) : -1,
      calls: [], members: new Map(),
    });
    idAt.set(node.start, id);
    for (const p of node.params as AstNode[]) walk(p, id);
    walk(body, id);
    return id;
  };

  const recordCall = (node: AstNode, fn: number) => {
    const callee = (node.type === 'TaggedTemplateExpression' ? node.tag : node.callee) as AstNode;
    const names: string[] = [];
    const direct = nameOf(callee);
    if (direct) names.push(direct);
    // `fn.call(…)`, `fn.apply(…)`, `fn.bind(…)()`: the callee frame is `fn`.
    if (direct === 'call' || direct === 'apply' || direct === 'bind') {
      const object = nameOf((callee as AstNode & { object?: AstNode }).object);
      if (object) names.push(object);
    }
    if (callee.type === 'CallExpression') {
      const inner = nameOf(callee.callee as AstNode);
      if (inner === 'bind') {
        const object = nameOf(((callee.callee as AstNode).object as AstNode | undefined));
        if (object) names.push(object);
      }
    }
    const at = map.pos(namePosNode(callee).start);
    const args = (node.arguments as AstNode[] | undefined) ?? [];
    const call: CallSite = { names, line: at.line, column: at.column, argFunctions: [], argNames: [], start: map.offset(node.start), end: map.offset(node.end) };
    const starts: number[] = [];
    for (const a of args) {
      const arg = a.type === 'SpreadElement' ? (a.argument as AstNode) : a;
      if (FUNCTION_TYPES.has(arg.type)) starts.push(arg.start);
      else {
        const n = nameOf(arg);
        if (n && (arg.type === 'Identifier' || arg.type === 'MemberExpression')) call.argNames.push(n);
      }
    }
    if (starts.length) pendingArgs.push({ call, starts });
    functions[fn].calls.push(call);
  };

  const recordMember = (node: AstNode, fn: number) => {
    const name = nameOf(node);
    if (!name) return;
    const line = map.pos((node.property as AstNode).start).line;
    const members = functions[fn].members;
    const list = members.get(name);
    if (list) { if (list[list.length - 1] !== line) list.push(line); } else members.set(name, [line]);
  };

  const noteModuleBinding = (declarator: AstNode, topLevel: boolean) => {
    if (!topLevel) return;
    const init = unwrapInterop(declarator.init as AstNode | null);
    const spec = requireSpecifier(init);
    if (spec === undefined) return;
    const idNode = declarator.id as AstNode;
    if (idNode.type === 'Identifier') imports.set(idNode.name as string, { module: spec.module, imported: spec.member ?? '*' });
    else if (idNode.type === 'ObjectPattern') {
      for (const p of idNode.properties as AstNode[]) {
        if (p.type !== 'ObjectProperty') continue;
        const key = nameOf(p.key as AstNode);
        const local = nameOf(p.value as AstNode);
        if (key && local) imports.set(local, { module: spec.module, imported: key });
      }
    }
  };

  const walk = (node: unknown, fn: number, context?: { inferred?: string; callee?: boolean; topLevel?: boolean }): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child, fn, context?.topLevel ? { topLevel: true } : undefined);
      return;
    }
    const n = node as AstNode;
    if (typeof n.type !== 'string') return;

    if (FUNCTION_TYPES.has(n.type)) {
      const id = visitFunction(n, fn, context?.inferred);
      if (n.type === 'FunctionDeclaration' && fn === 0) define(functions[id].name, id);
      return;
    }
    switch (n.type) {
      case 'ClassDeclaration':
      case 'ClassExpression': {
        const className = nameOf(n.id as AstNode) ?? context?.inferred ?? '';
        if (n.superClass) walk(n.superClass, fn);
        for (const member of ((n.body as AstNode).body as AstNode[])) {
          if (member.type === 'ClassMethod' || member.type === 'ClassPrivateMethod') {
            // V8 names a class constructor after its class.
            const inferred = member.kind === 'constructor' ? className : undefined;
            const id = visitFunction(member, fn, inferred);
            define(member.kind === 'constructor' ? className : functions[id].name.replace(/^(get|set) /, ''), id);
          } else if (member.type === 'ClassProperty' || member.type === 'ClassPrivateProperty' || member.type === 'ClassAccessorProperty') {
            const value = member.value as AstNode | null;
            const key = nameOf(member.key as AstNode);
            if (value && FUNCTION_TYPES.has(value.type)) define(key, visitFunction(value, fn, key));
            else walk(value, fn);
          } else {
            walk(member, fn);
          }
        }
        if (n.type === 'ClassDeclaration' && fn === 0 && className) define(className, -1);
        return;
      }
      case 'VariableDeclarator': {
        const name = nameOf(n.id as AstNode);
        noteModuleBinding(n, fn === 0);
        walk(n.id, fn);
        const init = n.init as AstNode | null;
        if (init && FUNCTION_TYPES.has(init.type)) {
          const id = visitFunction(init, fn, name);
          if (fn === 0) define(name, id);
        } else walk(init, fn, { inferred: name });
        return;
      }
      case 'AssignmentExpression': {
        const left = n.left as AstNode;
        const right = n.right as AstNode;
        const name = nameOf(left);
        walk(left, fn);
        noteExport(left, right, fn, exports);
        if (FUNCTION_TYPES.has(right.type)) {
          const id = visitFunction(right, fn, name);
          if (fn === 0) define(name, id);
          noteExportFunction(left, id, exports);
        } else walk(right, fn, { inferred: name });
        return;
      }
      case 'ObjectProperty': {
        const key = nameOf(n.key as AstNode);
        if (n.computed) walk(n.key, fn);
        const value = n.value as AstNode;
        if (FUNCTION_TYPES.has(value.type)) visitFunction(value, fn, key);
        else walk(value, fn, { inferred: key });
        return;
      }
      case 'ImportDeclaration': {
        const module = (n.source as AstNode).value as string;
        for (const s of n.specifiers as AstNode[]) {
          const local = nameOf(s.local as AstNode);
          if (!local) continue;
          if (s.type === 'ImportDefaultSpecifier') imports.set(local, { module, imported: 'default' });
          else if (s.type === 'ImportNamespaceSpecifier') imports.set(local, { module, imported: '*' });
          else imports.set(local, { module, imported: nameOf(s.imported as AstNode) ?? local });
        }
        return;
      }
      case 'ExportNamedDeclaration': {
        const decl = n.declaration as AstNode | null;
        if (decl) {
          walk(decl, fn, { topLevel: true });
          const declared = decl.type === 'VariableDeclaration' ? (decl.declarations as AstNode[]).map((d) => nameOf(d.id as AstNode)) : [nameOf(decl.id as AstNode)];
          for (const name of declared) if (name) exports.set(name, name);
        }
        for (const s of (n.specifiers as AstNode[] | undefined) ?? []) {
          const local = nameOf(s.local as AstNode);
          const exported = nameOf(s.exported as AstNode);
          if (local && exported) exports.set(exported, local);
        }
        return;
      }
      case 'ExportDefaultDeclaration': {
        const decl = n.declaration as AstNode;
        if (FUNCTION_TYPES.has(decl.type)) {
          const id = visitFunction(decl, fn, nameOf(decl.id as AstNode) ?? 'default');
          exports.set('default', id);
          if (decl.id) define(functions[id].name, id);
        } else {
          walk(decl, fn);
          const name = nameOf(decl);
          if (name) exports.set('default', name);
        }
        return;
      }
      default:
        break;
    }
    if (CALL_TYPES.has(n.type)) {
      recordCall(n, fn);
      const callee = (n.type === 'TaggedTemplateExpression' ? n.tag : n.callee) as AstNode;
      walkCallee(callee, fn);
      walk(n.type === 'TaggedTemplateExpression' ? n.quasi : n.arguments, fn);
      return;
    }
    if ((n.type === 'MemberExpression' || n.type === 'OptionalMemberExpression') && !context?.callee) recordMember(n, fn);
    let keys = CHILD_KEYS.get(n.type);
    if (!keys) CHILD_KEYS.set(n.type, (keys = Object.keys(n).filter((k) => !SKIP_KEYS.has(k))));
    for (const key of keys) {
      const value = n[key];
      if (value && typeof value === 'object') walk(value, fn);
    }
  };

  /** The callee of a call: walked for nested calls, but its own member read is the call, not a getter. */
  const walkCallee = (callee: AstNode, fn: number) => {
    let c = callee;
    while (c && WRAPPERS.has(c.type)) c = c.expression as AstNode;
    if (c && (c.type === 'MemberExpression' || c.type === 'OptionalMemberExpression')) {
      walk(c.object, fn);
      if (c.computed) walk(c.property, fn);
    } else walk(c, fn, { callee: true });
  };

  walk(program.body, 0, { topLevel: true });
  for (const { call, starts } of pendingArgs) {
    for (const s of starts) {
      const id = idAt.get(s);
      if (id !== undefined) call.argFunctions.push(id);
    }
  }
}

/** `require('x')`, `require('x').y`, tsc's `__importDefault(require('x'))`: the module and member taken. */
function requireSpecifier(init: AstNode | null): { module: string; member?: string } | undefined {
  if (!init) return undefined;
  if (init.type === 'CallExpression' && nameOf(init.callee as AstNode) === 'require' && (init.callee as AstNode).type === 'Identifier') {
    const arg = (init.arguments as AstNode[])[0];
    if (arg && arg.type === 'StringLiteral') return { module: arg.value as string };
    return undefined;
  }
  if ((init.type === 'MemberExpression') && !init.computed) {
    const inner = requireSpecifier(unwrapInterop(init.object as AstNode));
    const member = nameOf(init.property as AstNode);
    if (inner && member) return { module: inner.module, member };
  }
  return undefined;
}

/** tsc/babel interop wrappers around require(): `__importDefault(require('x'))`, `_interopRequireDefault(…)`. */
function unwrapInterop(node: AstNode | null): AstNode | null {
  let n = node;
  while (n && n.type === 'CallExpression' && /^(__import(Default|Star)|_interopRequire(Default|Wildcard))$/.test(nameOf(n.callee as AstNode) ?? '')) {
    n = (n.arguments as AstNode[])[0] ?? null;
  }
  return n;
}

/** `module.exports = { a, b: c }` / `exports.x = y` / `module.exports.x = y`: export names → local names. */
function noteExport(left: AstNode, right: AstNode, fn: number, exports: Map<string, number | string>): void {
  if (fn !== 0) return;
  const target = exportTarget(left);
  if (target === undefined) return;
  if (target === '=') {
    if (right.type === 'ObjectExpression') {
      for (const p of right.properties as AstNode[]) {
        if (p.type !== 'ObjectProperty') continue;
        const key = nameOf(p.key as AstNode);
        const value = p.value as AstNode;
        if (key && value.type === 'Identifier') exports.set(key, value.name as string);
      }
    } else if (right.type === 'Identifier') exports.set('default', right.name as string);
    return;
  }
  if (right.type === 'Identifier') exports.set(target, right.name as string);
}

function noteExportFunction(left: AstNode, id: number, exports: Map<string, number | string>): void {
  const target = exportTarget(left);
  if (target === undefined) return;
  exports.set(target === '=' ? 'default' : target, id);
}

/** '=' for `module.exports`, the name for `exports.x` / `module.exports.x`, else undefined. */
function exportTarget(left: AstNode): string | undefined {
  if (left.type !== 'MemberExpression' || left.computed) return undefined;
  const object = left.object as AstNode;
  const property = nameOf(left.property as AstNode);
  if (object.type === 'Identifier' && object.name === 'module' && property === 'exports') return '=';
  if (object.type === 'Identifier' && object.name === 'exports') return property;
  if (object.type === 'MemberExpression' && nameOf(object.object as AstNode) === 'module' && nameOf(object.property as AstNode) === 'exports') return property;
  return undefined;
}

