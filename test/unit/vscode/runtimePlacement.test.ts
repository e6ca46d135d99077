import { strict as assert } from 'node:assert';
import { runtimePlacement } from '../../../src/vscode/runtime/placement';

describe('where an allocation or "blocked the loop" label goes', () => {
  const layout = { tabSize: 2, maxColumn: 100, above: true };
  const blocked = 'blocked the loop: 69 turns, up to 43.4 ms';

  it('after a short line, even behind its CPU label', () => {
    assert.equal(runtimePlacement('  return x;', ['12.3% · 410 ms'], blocked, layout), 'after');
  });

  it('above a line whose code, CPU label and this label would run past the column', () => {
    const line = "  const key = crypto.pbkdf2Sync(month, 'orders-report', ROUNDS, 32, 'sha256');";
    assert.equal(runtimePlacement(line, [], blocked, layout), 'above', 'the line alone is long enough');
    assert.equal(runtimePlacement('  const key = derive(month);', ['84.1% total · 0.1% self · 2,563 ms'], blocked, { ...layout, maxColumn: 70 }), 'above', 'the CPU label counts');
  });

  it('after the line anyway when no CodeLens row can carry it (CodeLens off, or wrapped lines)', () => {
    assert.equal(runtimePlacement('x'.repeat(120), [], blocked, { ...layout, above: false }), 'after');
  });

  it('tabs count to the next tab stop', () => {
    assert.equal(runtimePlacement('\t'.repeat(20) + 'x', [], 'allocates 20.2 KB/req', { ...layout, tabSize: 4, maxColumn: 100 }), 'above');
    assert.equal(runtimePlacement('\t'.repeat(20) + 'x', [], 'allocates 20.2 KB/req', { ...layout, tabSize: 1, maxColumn: 100 }), 'after');
  });
});
