import { strict as assert } from 'node:assert';
import { parseAttach, parseCli } from '../../../src/cli/args';
import { ErrorCode, isHotpathError } from '../../../src/core/common/errors';

describe('CLI arguments', () => {
  it('splits hotpath options from the app command at --', () => {
    const a = parseCli(['profile', '--duration', '5', '--env', 'NODE_ENV=production', '--header', 'x-a: 1', '--', 'node', 'app.js', '--duration', '9']);
    assert.deepEqual(a.command, ['node', 'app.js', '--duration', '9']);
    assert.equal(a.load.durationSeconds, '5');
    assert.deepEqual(a.env, { NODE_ENV: 'production' });
    assert.deepEqual(a.load.headers, ['x-a: 1']);
  });

  it('compare --startup is a startup comparison of the two variants', () => {
    const a = parseCli(['compare', '--startup', '--node', '22', '--node', '24', '--', 'node', 'cli.js']);
    assert.equal(a.subcommand, 'startup');
    assert.deepEqual(a.startup?.variants?.nodes, ['22', '24']);
  });

  it('takes the app port from --url', () => {
    assert.equal(parseCli(['profile', '--url', 'http://127.0.0.1:8080/x', '--', 'node', 'a.js']).port, 8080);
  });

  for (const [argv, pattern] of [
    [['profile'], /needs the command that starts your app/],
    [['profile', 'app.js'], /put the app command after `--`/],
    [['frobnicate'], /Unknown command/],
    [['report'], /exactly one \.cpuprofile/],
    [['baseline', '--runs', '1', '--', 'node', 'a.js'], /--runs must be a whole number ≥ 2/],
    [['profile', '--env', 'NOVALUE', '--', 'node', 'a.js'], /--env takes NAME=VALUE/],
    [['verify', '--script', '--', 'node', 'a.js'], /--script works with `hotpath profile` and `hotpath compare`/],
    [['compare', '--', 'node', 'a.js'], /Nothing to compare: give the two sides something that differs/],
    [['compare', '--startup', '--', 'node', 'a.js'], /give --node A --node B or --base REV/],
    [['profile', '--startup', '--', 'node', 'a.js'], /--startup works with `hotpath compare`/],
    [['compare', '--node', '22', '--node', '24', '--node', '26', '--', 'node', 'a.js'], /at most twice/],
    [['compare', '--env-a', 'X', '--', 'node', 'a.js'], /--env-a takes NAME=VALUE/],
    [['compare', '--base', 'HEAD~1', '--pairs', '1', '--', 'node', 'a.js'], /--pairs must be a whole number ≥ 2/],
    [['compare', '--base', 'HEAD~1', '--pairs', '6', '--budget', '60', '--', 'node', 'a.js'], /leave out --target-ci and --budget/],
    [['verify', '--base', 'HEAD~1', '--', 'node', 'a.js'], /--base works with `hotpath compare` and `hotpath startup`/],
    [['profile', '--attach', '1', '--', 'node', 'a.js'], /leave out the command/],
    [['profile', '--bogus'], /Unknown option/],
  ] as const) {
    it(`rejects ${argv.join(' ')} with a message that says what to do`, () => {
      assert.throws(() => parseCli([...argv]), (err) => isHotpathError(err, ErrorCode.InvalidOption) && pattern.test(err.message));
    });
  }

  it('compare: sides from --base, --node (once for both, twice for A then B), --env-a/-b and node flags', () => {
    const a = parseCli(['compare', '--base', 'HEAD~1', '--node', '22', '--env-a', 'NODE_ENV=development', '--env-b', 'NODE_ENV=production', '--node-arg-b', '--max-semi-space-size=64', '--target-ci', '3', '--budget', '300', '--', 'node', 'app.js']);
    assert.equal(a.subcommand, 'compare');
    assert.deepEqual(a.compare!.sides, [
      { base: 'HEAD~1', node: '22', env: { NODE_ENV: 'development' }, nodeArgs: [] },
      { node: '22', env: { NODE_ENV: 'production' }, nodeArgs: ['--max-semi-space-size=64'] },
    ]);
    assert.deepEqual(a.compare!.interleave, { targetHalfWidthPct: 3, budgetMs: 300_000 });
    const n = parseCli(['compare', '--node', '22', '--node', '/opt/node24/bin/node', '--script', '--pairs', '8', '--no-profile', '--', 'node', 'b.js']);
    assert.equal(n.compare!.sides[0].node, '22');
    assert.equal(n.compare!.sides[1].node, '/opt/node24/bin/node');
    assert.equal(n.script, true);
    assert.equal(n.compare!.profile, false);
    assert.deepEqual(n.compare!.interleave, { fixedPairs: 8 });
  });

  it('parses --attach as PID, loopback host:port, or inspector URL, and refuses anything else', () => {
    assert.deepEqual(parseAttach('4242', 9300), { pid: 4242, inspectorPort: 9300 });
    assert.deepEqual(parseAttach('127.0.0.1:9229'), { inspectorPort: 9229 });
    assert.deepEqual(parseAttach('ws://127.0.0.1:9229/abc'), { inspectorUrl: 'ws://127.0.0.1:9229/abc' });
    assert.throws(() => parseAttach('10.0.0.5:9229'), /only loopback inspectors/);
  });
});
