import { strict as assert } from 'assert';
import { hotspotTable } from '../../../src/cli/humanOutput';

const row = (rank: number, fn: string, line: number, column: number) => ({
  rank, function: fn, file: '/p/node_modules/marked/lib/marked.esm.js', line, column, thread: 'main',
  ownPct: 5, selfPct: 5, totalPct: 5, ownMs: 50, category: 'dependency', package: 'marked',
  ownParts: [], inlinedInto: [], userCaller: null, callSite: null, v8: null,
}) as any;

describe('CLI hotspot table', () => {
  it('two functions of one name on one minified line get their columns; other rows stay file:line', () => {
    const out = hotspotTable([row(1, 'parse', 86, 1203), row(2, 'parse', 86, 1290), row(3, 'lex', 53, 10)], '/p');
    assert.match(out, /marked\.esm\.js:86:1203/);
    assert.match(out, /marked\.esm\.js:86:1290/);
    assert.match(out, /marked\.esm\.js:53(?!:)/);
  });

  it('a RegExp frame, named by its whole pattern, is cut to keep the table readable', () => {
    const out = hotspotTable([row(1, `RegExp: ${'(?:[^a-z])'.repeat(40)}`, 9, 1)], '/p');
    const line = out.split('\n').find((l) => l.includes('RegExp'))!;
    assert.ok(line.includes('…'));
    assert.ok(!line.includes('(?:[^a-z])'.repeat(7)), line);
  });
});
