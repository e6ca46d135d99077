import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseCli } from '../../../src/cli/args';
import { ErrorCode, type HotpathError } from '../../../src/core/common/errors';

const rejects = (argv: string[], pattern: RegExp) => assert.throws(() => parseCli(argv), (err: HotpathError) => err.code === ErrorCode.InvalidOption && pattern.test(err.message));

describe('CLI: routes, memory, event loop and leak options', () => {
  it('--request (repeatable) and --load-file', () => {
    const a = parseCli(['profile', '--request', 'GET:/orders:20', '--request', 'GET:/report', '--load-file', 'load.json', '--', 'node', 'app.js']);
    assert.deepEqual(a.load.routes, ['GET:/orders:20', 'GET:/report']);
    assert.equal(a.loadFile, path.resolve('load.json'));
    rejects(['profile', '--request', 'GET:/a', '--path', '/b', '--', 'node', 'a.js'], /leave out --path, --method and --body/);
    rejects(['report', '--request', 'GET:/a', 'x.cpuprofile'], /describe HTTP load/);
  });

  it('--memory with its interval, --block-threshold: profile under load only', () => {
    const a = parseCli(['profile', '--memory', '--block-threshold', '40', '--', 'node', 'app.js']);
    assert.equal(a.memoryIntervalBytes, 32768);
    assert.equal(a.blockThresholdMs, 40);
    assert.equal(parseCli(['profile', '--memory-interval', '8192', '--', 'node', 'a.js']).memoryIntervalBytes, 8192);
    assert.equal(parseCli(['profile', '--', 'node', 'a.js']).memoryIntervalBytes, undefined);
    rejects(['profile', '--memory-interval', '100', '--', 'node', 'a.js'], /--memory-interval must be a whole number ≥ 512/);
    rejects(['baseline', '--memory', '--', 'node', 'a.js'], /--memory works with `hotpath profile`/);
    rejects(['profile', '--script', '--memory', '--', 'node', 'a.js'], /--memory works with `hotpath profile` under load/);
  });

  it('hotpath leak with --rung and --idle; baseline --leak; verify --no-leak', () => {
    const a = parseCli(['leak', '--rung', '500', '--idle', '0', '--name', 'api', '--', 'node', 'app.js']);
    assert.equal(a.subcommand, 'leak');
    assert.equal(a.rungRequests, 500);
    assert.equal(a.idleSeconds, 0);
    assert.equal(parseCli(['baseline', '--leak', '--', 'node', 'a.js']).leak, true);
    assert.equal(parseCli(['verify', '--no-leak', '--', 'node', 'a.js']).leak, false);
    rejects(['leak', '--leak', '--', 'node', 'a.js'], /always checks for leaks/);
    rejects(['profile', '--rung', '10', '--', 'node', 'a.js'], /--rung and --idle set the leak check/);
    rejects(['leak', '--idle=-1', '--', 'node', 'a.js'], /--idle must be a number of seconds ≥ 0/);
    rejects(['leak'], /needs the command that starts your app/);
  });
});
