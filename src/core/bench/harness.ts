/**
 * "Create Benchmark for This Function": the expert's "extract, then measure" step as a file. Given a
 * hot function's source file, writes a tinybench harness next to it that imports the function (as the
 * module exports it: ES `export`, `export default`, or CommonJS `module.exports`/`exports`), with one
 * placeholder per parameter for the user's realistic inputs and a sink that keeps results alive so V8
 * cannot optimise the call away. Pure: the caller writes the file.
 */
import * as path from 'node:path';
import { parse } from '@babel/parser';

export type ExportKind = 'esm-named' | 'esm-default' | 'cjs-named' | 'cjs-whole';

export interface FunctionExport {
  kind: ExportKind;
  /** The name it is exported under (for cjs-whole and esm-default: the local name). */
  exportedAs: string;
  params: string[];
}

type Node = { type: string; [key: string]: any };

function paramNames(fn: Node | undefined): string[] {
  if (!fn || !Array.isArray(fn.params)) return [];
  return fn.params.map((p: Node, i: number) => {
    const inner = p.type === 'AssignmentPattern' ? p.left : p.type === 'RestElement' ? p.argument : p.type === 'TSParameterProperty' ? p.parameter : p;
    return inner?.type === 'Identifier' ? String(inner.name) : `arg${i + 1}`;
  });
}

const isFn = (n: Node | undefined) => !!n && /^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(n.type);

/** How `name` (declared in `source`) is exported, or undefined when it is not. */
export function findExport(source: string, fileName: string, name: string): FunctionExport | undefined {
  const ts = /\.[cm]?tsx?$/.test(fileName);
  let ast: Node;
  try {
    ast = parse(source, { sourceType: 'unambiguous', errorRecovery: true, plugins: ts ? ['typescript', ...(fileName.endsWith('x') ? ['jsx' as const] : [])] : ['jsx'] }) as unknown as Node;
  } catch {
    return undefined;
  }
  const body: Node[] = ast.program.body;
  // Where the function is declared, for its parameters.
  const declared = new Map<string, Node>();
  const declare = (n: Node | undefined) => {
    if (!n) return;
    if (n.type === 'FunctionDeclaration' && n.id) declared.set(n.id.name, n);
    if (n.type === 'VariableDeclaration') for (const d of n.declarations) if (d.id?.type === 'Identifier' && isFn(d.init)) declared.set(d.id.name, d.init);
  };
  for (const s of body) declare(s.type === 'ExportNamedDeclaration' || s.type === 'ExportDefaultDeclaration' ? s.declaration : s);
  const params = (local: string) => paramNames(declared.get(local));

  for (const s of body) {
    if (s.type === 'ExportNamedDeclaration') {
      const d = s.declaration;
      if (d?.type === 'FunctionDeclaration' && d.id?.name === name) return { kind: 'esm-named', exportedAs: name, params: paramNames(d) };
      if (d?.type === 'VariableDeclaration' && d.declarations.some((x: Node) => x.id?.name === name)) return { kind: 'esm-named', exportedAs: name, params: params(name) };
      for (const sp of s.specifiers ?? []) {
        if (sp.local?.name === name && !s.source) {
          const as = sp.exported?.name ?? sp.exported?.value;
          return as === 'default' ? { kind: 'esm-default', exportedAs: name, params: params(name) } : { kind: 'esm-named', exportedAs: as, params: params(name) };
        }
      }
    }
    if (s.type === 'ExportDefaultDeclaration') {
      const d = s.declaration;
      if ((d?.type === 'FunctionDeclaration' && d.id?.name === name) || (d?.type === 'Identifier' && d.name === name)) return { kind: 'esm-default', exportedAs: name, params: d.type === 'Identifier' ? params(name) : paramNames(d) };
    }
    if (s.type === 'ExpressionStatement' && s.expression.type === 'AssignmentExpression') {
      const { left, right } = s.expression;
      const isModuleExports = (n: Node) => n?.type === 'MemberExpression' && n.object?.name === 'module' && n.property?.name === 'exports';
      // module.exports = name / module.exports = { name, alias: name }
      if (isModuleExports(left)) {
        if (right.type === 'Identifier' && right.name === name) return { kind: 'cjs-whole', exportedAs: name, params: params(name) };
        if (right.type === 'ObjectExpression') {
          for (const p of right.properties) {
            if (p.type !== 'ObjectProperty' && p.type !== 'ObjectMethod') continue;
            const key = p.key?.name ?? p.key?.value;
            if (p.type === 'ObjectMethod' && key === name) return { kind: 'cjs-named', exportedAs: key, params: paramNames(p) };
            if (p.value?.type === 'Identifier' && p.value.name === name) return { kind: 'cjs-named', exportedAs: key, params: params(name) };
            if (key === name && isFn(p.value)) return { kind: 'cjs-named', exportedAs: key, params: paramNames(p.value) };
          }
        }
      }
      // exports.name = … / module.exports.name = …
      if (left.type === 'MemberExpression' && (left.object?.name === 'exports' || isModuleExports(left.object))) {
        const key = left.property?.name;
        if (key === name || (right.type === 'Identifier' && right.name === name)) return { kind: 'cjs-named', exportedAs: key, params: isFn(right) ? paramNames(right) : params(right.name ?? name) };
      }
    }
  }
  return undefined;
}

export interface Harness {
  /** Where to write it (next to the source). */
  file: string;
  text: string;
}

/** The harness for `name` in `sourceFile`; `exists` says which candidate file names are taken. */
export function benchmarkHarness(input: { sourceFile: string; name: string; exported: FunctionExport; exists: (file: string) => boolean }): Harness {
  const { sourceFile, name, exported } = input;
  const dir = path.dirname(sourceFile);
  const ext = path.extname(sourceFile);
  const base = path.basename(sourceFile, ext);
  const ts = /^\.[cm]?tsx?$/.test(ext);
  const out = ts ? '.bench.mts' : '.bench.mjs';
  const candidates = [`${base}${out}`, `${base}.${name}${out}`, ...[2, 3, 4, 5].map((n) => `${base}.${name}-${n}${out}`)].map((f) => path.join(dir, f));
  const file = candidates.find((f) => !input.exists(f)) ?? candidates[candidates.length - 1];
  const spec = `./${path.basename(sourceFile)}`;
  const local = exported.kind === 'esm-named' || exported.kind === 'cjs-named' ? exported.exportedAs : name;
  const importLines = exported.kind === 'esm-named'
    ? [`import { ${exported.exportedAs === name ? name : `${exported.exportedAs} as ${name}`} } from '${spec}';`]
    : exported.kind === 'esm-default'
      ? [`import ${name} from '${spec}';`]
      : ["import { createRequire } from 'node:module';", '', 'const require = createRequire(import.meta.url);', exported.kind === 'cjs-whole' ? `const ${name} = require('${spec}');` : `const { ${local === name ? name : `${local}: ${name}`} } = require('${spec}');`];
  const params = exported.params.length ? exported.params : [];
  const inputs = params.length
    ? params.map((p) => `const ${p} = undefined; // TODO: a realistic ${p}`)
    : ['// (it takes no parameters)'];
  const text = [
    `// Benchmark of ${name} (${path.basename(sourceFile)}), written by Hotpath: \`hotpath bench ${path.basename(file)}\``,
    '// or the Benchmark CodeLens above. Fill in inputs shaped like production\'s (sizes, types, object',
    '// shapes): V8 optimises for what it sees, so toy inputs measure toy code. Then add the version you',
    '// want to compare as a second task, and compare the two (`hotpath bench FILE --compare a,b`).',
    "import { Bench } from 'tinybench';",
    ...importLines,
    '',
    ...inputs,
    '',
    '// Every result goes into `sink`, read after the run, so V8 cannot optimise the call away.',
    'let sink;',
    'const bench = new Bench({ time: 1000, warmupTime: 250 });',
    `bench.add('${name}', () => { sink = ${name}(${params.join(', ')}); });`,
    '',
    'await bench.run();',
    'console.table(bench.table());',
    "if (sink === Symbol.for('never')) console.log(sink);",
    '',
  ].join('\n');
  return { file, text };
}
