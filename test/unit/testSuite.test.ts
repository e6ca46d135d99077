import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

// The rules of the test suite itself (issue 20): only real-VS-Code tests may be retried (on CI, by
// scripts/test/run.js); a unit, integration or browser test that fails by chance must be fixed, not
// retried. And `npm test` finds every test file by its folder, none by a list.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { plan, testFiles, ROOT } = require('../../scripts/test/plan.js') as {
  plan(o?: { only?: string[] }): Array<{ file: string; group: string; lane: string; own: boolean; quick: boolean }>;
  testFiles(dir: string): string[];
  ROOT: string;
};

const RETRY = /\.retries\(\s*[1-9]/;

describe('the test suite', () => {
  it('no unit, integration or browser test retries itself', () => {
    const offenders: string[] = [];
    for (const dir of ['test/unit', 'test/integration', 'test/browser', 'test/helpers']) {
      for (const file of walk(path.join(ROOT, dir))) {
        if (file.endsWith(path.join('test', 'unit', 'testSuite.test.ts'))) continue;
        fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => { if (RETRY.test(line)) offenders.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`); });
      }
    }
    assert.deepEqual(offenders, [], 'only the real-VS-Code lane may retry (on CI); a test that fails by chance needs a chance budget');
  });

  it('the lint recognises a retry', () => {
    assert.ok(RETRY.test('    this.retries(1);'));
    assert.ok(!RETRY.test('    this.retries(0);'));
  });

  it('npm test runs every *.test.ts under test/, each in its group', () => {
    const planned = new Set(plan().map((e) => e.file));
    const onDisk = ['unit', 'integration', 'browser', 'e2e'].flatMap((g) => testFiles(`test/${g}`));
    assert.deepEqual(onDisk.filter((f) => !planned.has(f)), []);
    assert.ok(onDisk.length > 60 && planned.has('test/unit/testSuite.test.ts'));
    const lanes = new Map(plan().map((e) => [e.file, e]));
    assert.equal(lanes.get('test/integration/compare.test.ts')?.lane, 'measured', 'a verdict suite runs alone');
    assert.equal(lanes.get('test/integration/attribution.test.ts')?.lane, 'shared');
    assert.equal(lanes.get('test/e2e/extension-host.test.ts')?.own, true);
  });

  it('the recorded file times that order a clean clone\'s shared lane name files of the plan', () => {
    // A renamed or deleted file would silently fall back to a guess and could start last again.
    const recorded = JSON.parse(fs.readFileSync(path.join(ROOT, 'scripts/test/timings.json'), 'utf8')) as Record<string, number>;
    const planned = new Set(plan().map((e) => e.file));
    assert.deepEqual(Object.keys(recorded).filter((f) => !planned.has(f)), []);
    assert.ok(Object.values(recorded).every((s) => Number.isFinite(s) && s >= 0));
    assert.ok(recorded['test/integration/ci-gate.test.ts'] > 60, 'the long files are recorded');
  });
});

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'fixtures' || e.name === 'out') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p)); else if (/\.(ts|js)$/.test(e.name)) out.push(p);
  }
  return out;
}
