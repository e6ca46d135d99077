import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { grownLines, lineChanges, type SideLine } from '../../../src/core/profileDiff/lines';
import { lineMapSince, mapLine, newLineOrigin, parseUnifiedDiff } from '../../../src/core/variants/lineMap';

const line = (file: string, n: number, own: number, total = own): SideLine => ({ file, line: n, ownPct: own, totalPct: total, selfPct: own, function: 'f' });

describe('lines across revisions (variants/lineMap.ts, profileDiff/lines.ts)', () => {
  const diff = [
    'diff --git a/lib/work.js b/lib/work.js',
    '--- a/lib/work.js',
    '+++ b/lib/work.js',
    '@@ -3,0 +4,5 @@',
    '@@ -7 +12 @@ function tableTotal(n) {',
    '@@ -12 +17 @@ const steps = {',
    '@@ -20,2 +25 @@',
    'diff --git a/gone.js b/gone.js',
    '--- a/gone.js',
    '+++ /dev/null',
    '@@ -1,3 +0,0 @@',
    'diff --git a/new.js b/new.js',
    '--- /dev/null',
    '+++ b/new.js',
    '@@ -0,0 +1,2 @@',
  ].join('\n');

  it('maps an old line past insertions, rewrites in place and removals', () => {
    const hunks = parseUnifiedDiff(diff);
    assert.deepEqual([...hunks.keys()], ['lib/work.js', 'gone.js']);
    const h = hunks.get('lib/work.js')!;
    assert.deepEqual(mapLine(h, 2), { line: 2, changed: false });
    assert.deepEqual(mapLine(h, 3), { line: 3, changed: false });
    assert.deepEqual(mapLine(h, 4), { line: 9, changed: false });
    assert.deepEqual(mapLine(h, 7), { line: 12, changed: true });
    assert.deepEqual(mapLine(h, 12), { line: 17, changed: true });
    assert.deepEqual(mapLine(h, 15), { line: 20, changed: false });
    assert.equal(mapLine(h, 20), null, 'two lines became one: no counterpart');
    assert.deepEqual(mapLine(h, 22), { line: 26, changed: false });
    assert.equal(mapLine(hunks.get('gone.js')!, 2), null);
  });

  it('a line whose time grew is found in the new numbering; code that only moved is compared with itself', () => {
    const before = [line('lib/work.js', 6, 40), line('lib/work.js', 12, 2), line('server.js', 11, 5, 50)];
    const after = [line('lib/work.js', 11, 9), line('lib/work.js', 17, 81), line('server.js', 11, 1, 95)];
    const h = parseUnifiedDiff(diff);
    const map = (file: string, n: number) => (h.has(file) ? mapLine(h.get(file)!, n) : { line: n, changed: false });
    const changes = lineChanges(before, after, map);
    const grown = grownLines(changes, 10);
    assert.deepEqual(grown.map((c) => [c.file, c.line, c.origin]), [['lib/work.js', 17, 'changed'], ['server.js', 11, 'unchanged']]);
    assert.equal(grown[0].deltaOwn, 79);
    // The moved table walk lost share: it is not a line that grew (with the lines left unmapped, it would be).
    assert.equal(changes.find((c) => c.line === 11 && c.file === 'lib/work.js')!.deltaOwn, -31);
    const unmapped = grownLines(lineChanges(before, after, (_f, n) => ({ line: n, changed: false })), 10);
    assert.ok(unmapped.some((c) => c.file === 'lib/work.js' && c.line === 11));
    assert.equal(grownLines(changes, 1).length, 1, 'at most the limit');
  });

  it('a line the older side had no time on: the diff says whether it was rewritten, added or untouched', () => {
    const h = parseUnifiedDiff(diff).get('lib/work.js')!;
    assert.deepEqual([4, 8, 9, 12, 17, 25, 3, 30].map((n) => newLineOrigin(h, n)), ['added', 'added', 'unchanged', 'changed', 'changed', 'added', 'unchanged', 'unchanged']);
    // Base line 12 (rewritten in place as 17) had no time in A's profile: still "changed", not "new".
    const map = Object.assign((_f: string, n: number) => (mapLine(h, n)), { originInNew: (f: string, n: number) => (f === 'lib/work.js' ? newLineOrigin(h, n) : undefined) });
    const changes = lineChanges([line('lib/work.js', 6, 40)], [line('lib/work.js', 17, 81), line('lib/work.js', 5, 3), line('lib/work.js', 30, 2), line('new.js', 1, 4)], map);
    assert.deepEqual(changes.map((c) => [c.file, c.line, c.origin]), [['lib/work.js', 17, 'changed'], ['lib/work.js', 5, 'added'], ['lib/work.js', 30, 'unchanged'], ['new.js', 1, 'added']]);
  });

  it('lineMapSince reads git\'s diff of a revision against the working tree', function () {
    this.timeout(20_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-linemap-'));
    try {
      const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
      git('init', '-q');
      fs.mkdirSync(path.join(dir, 'lib'));
      fs.writeFileSync(path.join(dir, 'lib/a b.js'), ['one', 'two', 'three', 'four'].join('\n'));
      git('add', '-A');
      git('commit', '-qm', 'base');
      fs.writeFileSync(path.join(dir, 'lib/a b.js'), ['zero', 'one', 'two', 'THREE', 'four'].join('\n'));
      return lineMapSince(dir, 'HEAD', ['lib/a b.js']).then((map) => {
        assert.deepEqual(map('lib/a b.js', 1), { line: 2, changed: false });
        assert.deepEqual(map('lib/a b.js', 3), { line: 4, changed: true });
        assert.deepEqual(map('lib/a b.js', 4), { line: 5, changed: false });
        assert.deepEqual(map('other.js', 4), { line: 4, changed: false });
        assert.deepEqual([1, 2, 4, 5].map((n) => map.originInNew('lib/a b.js', n)), ['added', 'unchanged', 'changed', 'unchanged']);
        assert.equal(map.originInNew('other.js', 1), undefined, 'a file the diff did not cover');
      }).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  });
});
