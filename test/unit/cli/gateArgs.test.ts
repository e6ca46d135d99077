import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { parseCli } from '../../../src/cli/args';

describe('CLI arguments of the CI gate (--md FILE, --fail-on, --max-regression, --min-effect, --annotations)', () => {
  it('a gated command takes the policy; --md FILE is a file, --md alone stays Markdown on stdout (profile, report)', () => {
    const a = parseCli(['compare', '--base', 'origin/main', '--md', 'perf.md', '--fail-on', 'slower,inconclusive', '--max-regression', '10%', '--min-effect', '2', '--annotations', 'none', '--', 'node', 'server.js']);
    assert.equal(a.gate.mdFile, path.resolve('perf.md'));
    assert.deepEqual([...a.gate.policy.failOn], ['slower', 'inconclusive']);
    assert.equal(a.gate.policy.maxRegressionPct, 10);
    assert.equal(a.gate.policy.minEffectPct, 2);
    assert.equal(a.gate.annotations, 'none');
    assert.equal(a.md, false);
    assert.deepEqual(a.command, ['node', 'server.js']);
    // Defaults: fail on slower, annotations by environment.
    const d = parseCli(['verify', '--', 'node', 'a.js']);
    assert.deepEqual([...d.gate.policy.failOn], ['slower']);
    assert.equal(d.gate.annotations, undefined);
    assert.deepEqual([...parseCli(['verify', '--fail-on', 'never', '--', 'node', 'a.js']).gate.policy.failOn], []);
    assert.equal(parseCli(['profile', '--md', '--', 'node', 'a.js']).md, true);
    assert.equal(parseCli(['report', '--md', 'x.cpuprofile']).md, true);
    assert.deepEqual(parseCli(['report', '--md', 'x.cpuprofile']).files, ['x.cpuprofile']);
    assert.equal(parseCli(['report', '--md=out.md', 'x.cpuprofile']).gate.mdFile, path.resolve('out.md'));
    assert.equal(parseCli(['bench', 'b.bench.mjs', '--baseline', 'main', '--md', 'bench.md', '--fail-on', 'never']).gate.mdFile, path.resolve('bench.md'));
    assert.equal(parseCli(['startup', '--node', '22', '--node', '24', '--max-regression', '5', '--', 'node', 'cli.js']).gate.policy.maxRegressionPct, 5);
  });

  for (const [argv, pattern] of [
    [['profile', '--fail-on', 'slower', '--', 'node', 'a.js'], /--fail-on sets the CI gate of a comparison/],
    [['startup', '--max-regression', '5', '--', 'node', 'a.js'], /--max-regression sets the CI gate/],
    [['bench', 'b.mjs', '--annotations', 'github'], /--annotations sets the CI gate/],
    [['verify', '--fail-on', 'faster', '--', 'node', 'a.js'], /--fail-on takes slower, inconclusive/],
    [['verify', '--fail-on', 'never,slower', '--', 'node', 'a.js'], /--fail-on takes/],
    [['verify', '--max-regression=-3', '--', 'node', 'a.js'], /--max-regression takes a percentage/],
    [['verify', '--min-effect', 'lots', '--', 'node', 'a.js'], /--min-effect takes a percentage/],
    [['verify', '--annotations', 'gitlab', '--', 'node', 'a.js'], /--annotations takes github or none/],
    [['verify', '--md', 'server.js', '--', 'node', 'a.js'], /--md FILE writes Markdown/],
    [['compare', '--base', 'HEAD', '--md', '--', 'node', 'a.js'], /other commands write it to a file: --md FILE/],
  ] as Array<[string[], RegExp]>) {
    it(`refuses ${argv.join(' ')}`, () => assert.throws(() => parseCli(argv), pattern));
  }
});
