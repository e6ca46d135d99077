/**
 * Whether a function's own code can allocate on the JavaScript heap, read from its source. V8's sampling
 * heap profiler charges an allocation to the frame that made it, and code V8 inlined has no frame: its
 * allocations are charged to the caller. To say which of a frame's function and its inlined callees
 * made the bytes, each one's own code is read (calls to the others left out: those are theirs).
 *
 * Conservative on purpose: `yes` is a construct that allocates whenever it runs (an object, array or
 * closure, `new`, a template with substitutions, a string concatenation, an allocating built-in such as
 * `map` or `push`); `maybe` is code that can allocate or not depending on values the source does not
 * show (a call Hotpath cannot see into, which may be a built-in with no frame of its own; an element
 * store that may grow an array; `+` of unknown types; `for…of`'s iterator; `await`); `no` only when
 * neither is there. A placement may rely on `no`, never on a guess.
 */
import { parse } from '@babel/parser';
import { lineOfOffset } from '../common/textLines';
import { matchBracket, skipTrivia } from './brackets';
import { pluginsFor, type AstNode, type ParsedFunction } from './sourceIndex';

export interface AllocationEvidence {
  verdict: 'yes' | 'maybe' | 'no';
  /** The first construct that decided it, for people: `object literal`, `call of push()`, … */
  what?: string;
  /** Its 1-based line. */
  line?: number;
}

/** Built-ins that allocate what they return (or grow their receiver). Called as methods. */
const ALLOCATING_METHODS = new Set([
  'map', 'filter', 'slice', 'splice', 'concat', 'flat', 'flatMap', 'push', 'unshift', 'split', 'join', 'toString', 'toFixed', 'toPrecision',
  'replace', 'replaceAll', 'match', 'matchAll', 'substring', 'substr', 'padStart', 'padEnd', 'repeat', 'trim', 'trimStart', 'trimEnd',
  'toLowerCase', 'toUpperCase', 'keys', 'values', 'entries', 'assign', 'from', 'of', 'stringify', 'bind', 'normalize', 'toISOString',
  'toJSON', 'toSorted', 'toReversed', 'toSpliced', 'with', 'fromCharCode', 'fromCodePoint', 'create', 'fromEntries', 'structuredClone',
]);
/** Built-ins that return numbers or booleans, or read without allocating. */
const PLAIN_METHODS = new Set([
  'floor', 'ceil', 'round', 'trunc', 'abs', 'min', 'max', 'sqrt', 'pow', 'log', 'log2', 'log10', 'exp', 'sign', 'hypot', 'imul', 'clz32', 'fround',
  'sin', 'cos', 'tan', 'atan', 'atan2', 'random', 'charCodeAt', 'codePointAt', 'indexOf', 'lastIndexOf', 'includes', 'startsWith', 'endsWith',
  'has', 'get', 'isArray', 'isInteger', 'isFinite', 'isNaN', 'isSafeInteger', 'hasOwnProperty', 'is', 'localeCompare', 'test', 'now',
]);
const PLAIN_GLOBALS = new Set(['Number', 'Boolean', 'isNaN', 'isFinite', 'parseInt', 'parseFloat']);
const FUNCTION_TYPES = new Set(['FunctionExpression', 'ArrowFunctionExpression', 'FunctionDeclaration', 'ClassExpression', 'ClassDeclaration', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod']);
const SKIP_KEYS = new Set(['loc', 'start', 'end', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'range', 'typeAnnotation', 'returnType', 'typeParameters', 'superTypeParameters', 'decorators']);
const NUMERIC_OPERATORS = new Set(['-', '*', '/', '%', '**', '|', '&', '^', '<<', '>>', '>>>']);

/** True when an expression surely yields a number (so a `+` with it adds rather than concatenates). */
function numeric(n: AstNode | undefined): boolean {
  if (!n) return false;
  switch (n.type) {
    case 'NumericLiteral': return true;
    case 'UpdateExpression': return true;
    case 'UnaryExpression': return n.operator === '-' || n.operator === '+' || n.operator === '~';
    case 'BinaryExpression': return NUMERIC_OPERATORS.has(n.operator as string);
    case 'ParenthesizedExpression': return numeric(n.expression as AstNode);
    default: return false;
  }
}
const stringy = (n: AstNode | undefined) => n !== undefined && (n.type === 'StringLiteral' || n.type === 'TemplateLiteral');

/** The called name of a callee expression: `f` for `f()`, `push` for `a.b.push()`; '' when computed. */
function calleeName(n: AstNode): { name: string; member: boolean; object?: string } {
  if (n.type === 'Identifier') return { name: n.name as string, member: false };
  if ((n.type === 'MemberExpression' || n.type === 'OptionalMemberExpression') && !n.computed) {
    const p = n.property as AstNode;
    const o = n.object as AstNode;
    return { name: p.type === 'Identifier' || p.type === 'PrivateName' ? String((p as AstNode).name ?? ((p.id as AstNode)?.name)) : '', member: true, object: o.type === 'Identifier' ? o.name as string : undefined };
  }
  return { name: '', member: true };
}

/**
 * The evidence in `fn`'s own code (nested functions' bodies left out: creating them is the allocation).
 * `others`: names of functions whose calls are not this code's (inlined callees, the functions it calls
 * that have frames of their own).
 */
export function allocationEvidence(file: { file: string; text: string; lineStarts: Int32Array }, fn: ParsedFunction, others: ReadonlySet<string>): AllocationEvidence {
  const text = file.text;
  const at = fn.anchor.line >= 1 && fn.anchor.line <= file.lineStarts.length ? file.lineStarts[fn.anchor.line - 1] + fn.anchor.column : -1;
  if (at < 0 || fn.end <= at || fn.parent === -1) return { verdict: 'maybe', what: 'code that could not be read' };
  const slice = text.slice(at, fn.end);
  // V8's position is the parameter list's `(` (or an arrow's single parameter): an arrow when `=>` follows it.
  const paramsEnd = text.charCodeAt(at) === 40 ? matchBracket(text, at) : at + (/^[A-Za-z_$][\w$]*/.exec(slice)?.[0].length ?? 1) - 1;
  const afterParams = paramsEnd < 0 ? -1 : skipTrivia(text, paramsEnd + 1);
  const arrow = afterParams >= 0 && (text.startsWith('=>', afterParams) || (text.charCodeAt(afterParams) === 58 && /^:[^{]*=>/.test(text.slice(afterParams, fn.end))));
  const head = arrow ? '(async ' : '(async function* ';
  let ast: { program: AstNode };
  try {
    ast = parse(`${head}${slice})`, { sourceType: 'unambiguous', errorRecovery: true, allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true, allowSuperOutsideMethod: true, plugins: pluginsFor(file.file) }) as unknown as { program: AstNode };
  } catch {
    return { verdict: 'maybe', what: 'code that could not be read' };
  }
  const top = ((ast.program.body as AstNode[])[0]?.expression) as AstNode | undefined;
  if (!top || !FUNCTION_TYPES.has(top.type)) return { verdict: 'maybe', what: 'code that could not be read' };
  const lineOf = (node: AstNode) => lineOfOffset(file.lineStarts, at + node.start - head.length);
  let maybe: AllocationEvidence | undefined;
  let found: AllocationEvidence | undefined;
  const yes = (node: AstNode, what: string) => { found ??= { verdict: 'yes', what, line: lineOf(node) }; };
  const may = (node: AstNode, what: string) => { maybe ??= { verdict: 'maybe', what, line: lineOf(node) }; };

  const visit = (node: AstNode, isTop: boolean): void => {
    if (found) return;
    if (!isTop && FUNCTION_TYPES.has(node.type)) {
      yes(node, node.type.startsWith('Class') ? 'class' : 'closure');
      return;
    }
    switch (node.type) {
      case 'ObjectExpression': yes(node, 'object literal'); return;
      case 'ArrayExpression': yes(node, 'array literal'); return;
      case 'NewExpression': yes(node, `new ${calleeName(node.callee as AstNode).name || '…'}`); return;
      case 'RegExpLiteral': yes(node, 'regular expression'); return;
      case 'SpreadElement': case 'RestElement': yes(node, node.type === 'SpreadElement' ? 'spread' : 'rest parameter'); return;
      case 'TemplateLiteral': if ((node.expressions as AstNode[]).length) { yes(node, 'template string'); return; } break;
      case 'TaggedTemplateExpression': may(node, 'tagged template'); break;
      case 'AwaitExpression': case 'YieldExpression': yes(node, node.type === 'AwaitExpression' ? 'await' : 'yield'); return;
      case 'ForOfStatement': case 'ForInStatement': may(node, node.type === 'ForOfStatement' ? 'for…of iterator' : 'for…in keys'); break;
      case 'ArrayPattern': may(node, 'array destructuring (iterator)'); break;
      case 'BinaryExpression':
      case 'AssignmentExpression': {
        const op = node.operator as string;
        if (op === '+' || op === '+=') {
          const [l, r] = node.type === 'BinaryExpression' ? [node.left as AstNode, node.right as AstNode] : [node.left as AstNode, node.right as AstNode];
          if (stringy(l) || stringy(r)) { yes(node, 'string concatenation'); return; }
          if (!numeric(l) && !numeric(r)) may(node, '+ of values of unknown type');
        }
        if (node.type === 'AssignmentExpression' && (node.left as AstNode).type === 'MemberExpression') {
          const left = node.left as AstNode;
          may(node, left.computed ? 'element store (may grow the array)' : 'property store (may add a property)');
        }
        break;
      }
      case 'CallExpression':
      case 'OptionalCallExpression': {
        const c = calleeName(node.callee as AstNode);
        if (others.has(c.name) && c.name) break; // an inlined callee's code, or a function with a frame of its own
        if (c.member && ALLOCATING_METHODS.has(c.name)) { yes(node, `${c.name}()`); return; }
        if ((c.member && PLAIN_METHODS.has(c.name)) || (!c.member && PLAIN_GLOBALS.has(c.name))) break;
        may(node, `call of ${c.name || 'a computed function'}()`);
        break;
      }
      default: break;
    }
    for (const key of Object.keys(node)) {
      if (SKIP_KEYS.has(key)) continue;
      const child = node[key];
      if (Array.isArray(child)) {
        for (const c of child) if (c && typeof c === 'object' && typeof (c as AstNode).type === 'string') visit(c as AstNode, false);
      } else if (child && typeof child === 'object' && typeof (child as AstNode).type === 'string') {
        visit(child as AstNode, false);
      }
    }
  };
  visit(top, true);
  return found ?? maybe ?? { verdict: 'no' };
}
