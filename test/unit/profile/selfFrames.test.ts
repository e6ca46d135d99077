import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { isHotpathFrame } from '../../../src/core/profile/selfFrames';
import { PROBE_NAME } from '../../../src/core/v8/traceParser';
import { analyzeModel } from '../../../src/core/workflow/analyze';
import { anchor, fn, synthModel } from '../attribution/synth';

/**
 * Hotpath's own frames are never hotspots: what its preloads run, and the code it evaluates in a target
 * over the inspector (no script file, so told by name). The second test reads Hotpath's sources for
 * every function defined in code it sends to a target, so a new one cannot slip past the rule.
 */

const SRC = path.resolve(__dirname, '../../../src');

/**
 * The text of the string and template literals of a TypeScript source (code Hotpath may evaluate in a
 * target), read with the compiler's own parser; `${PROBE_NAME}` (the probes' names) is resolved.
 */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node)) {
      out.push(node.head.text + node.templateSpans.map((s) => (s.expression.getText(source) === 'PROBE_NAME' ? PROBE_NAME : '\0') + s.literal.text).join(''));
      node.templateSpans.forEach((s) => visit(s.expression));
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('Hotpath\'s own frames', () => {
  it('the loop monitor, the probes, the exit hook and the worker hub\'s wait are left out of the hotspots, an app\'s function of the same kind of name is not', async () => {
    const row = anchor('lib/render.js', 'function row');
    const model = synthModel([
      fn('listOnTimeout', 'node:internal/timers', 500, 25, { children: [fn('hotpathLoopTick', '', 97, 50, { self: 30, children: [fn('nowUs', '', 55, 16, { self: 5 })] })] }),
      fn('(anonymous)', '', 1, 1, { children: [fn('hotpathLoopMonitorStart', '', 82, 35, { self: 40 })] }),
      fn('hotpathGcHarvest', '', 92, 62, { self: 8 }),
      fn('hotpathWorkerTurn', '', 1, 30, { self: 6 }),
      fn('__hotpathV8ProbeInterpreted', '', 3, 45, { self: 4 }),
      fn('row', 'lib/render.js', row[0], row[1], { self: 20 }),
      // An app may name its own functions so: it has a file, so it is the app's.
      fn('hotpathHelper', 'lib/pricing.js', 1, 1, { self: 10 }),
    ]);
    const analysis = await analyzeModel(model, { thread: 'main', limit: 20, profilePath: '/nonexistent/synth.cpuprofile', attribution: false });
    const names = analysis.hotspots.map((h) => h.function);
    for (const own of ['hotpathLoopTick', 'nowUs', 'hotpathLoopMonitorStart', 'hotpathGcHarvest', 'hotpathWorkerTurn', '__hotpathV8ProbeInterpreted']) {
      assert.ok(!names.includes(own), `${own} is Hotpath's: ${names.join(', ')}`);
    }
    assert.ok(names.includes('row') && names.includes('hotpathHelper'), names.join(', '));
    assert.match(analysis.overhead?.message ?? '', /took 93(\.0)? ms/);
  });

  it('every function Hotpath defines in code it sends to a target is told as Hotpath\'s', () => {
    const found = new Map<string, string>();
    for (const file of tsFiles(SRC)) {
      for (const text of literals(file)) {
        for (const m of text.matchAll(/\bfunction\s+([A-Za-z_$][\w$]*)\s*\(/g)) found.set(m[1], path.relative(SRC, file));
      }
    }
    // The scan finds what it must: the loop monitor, the V8 probes and exit hook, the worker hub's look at a worker.
    for (const known of ['hotpathLoopMonitorStart', 'hotpathLoopMonitorStop', 'hotpathLoopTick', 'hotpathGcHarvest', `${PROBE_NAME}Loop`, `${PROBE_NAME}Interpreted`, 'hotpathV8ExitHook', 'hotpathWorkerState']) {
      assert.ok(found.has(known), `${known} found in the sources: ${[...found.keys()].join(', ')}`);
    }
    const notOwn = [...found].filter(([name]) => !isHotpathFrame(name, ''));
    assert.deepEqual(notOwn, [], 'functions evaluated in a target must be named hotpath… (or be Hotpath\'s otherwise)');
  });
});
