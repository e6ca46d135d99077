import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { parseCli } from '../../../src/cli/args';
import { ErrorCode, isHotpathError } from '../../../src/core/common/errors';

describe('CLI arguments of production profiles', () => {
  it('report: --sample-type, --label (repeatable), --map-path and --pprof OUT', () => {
    const a = parseCli(['report', '--sample-type', 'wall', '--label', 'trace endpoint=GET /orders', '--label', 'region=eu', '--map-path', '/app=.', '--pprof', 'out.pb.gz', 'prod.pb.gz']);
    assert.equal(a.pprof.sampleType, 'wall');
    assert.deepEqual(a.pprof.labels, [{ key: 'trace endpoint', value: 'GET /orders' }, { key: 'region', value: 'eu' }]);
    assert.deepEqual(a.pprof.mappings, [{ from: '/app', to: '.' }]);
    assert.equal(a.pprof.out, path.resolve('out.pb.gz'));
    assert.deepEqual(a.files, ['prod.pb.gz']);
  });

  it('--pprof alone on a recording command: beside each profile; report --diff takes two profiles without --html', () => {
    assert.equal(parseCli(['profile', '--pprof', '--', 'node', 'a.js']).pprof.out, '');
    assert.equal(parseCli(['startup', '--pprof', '--runs', '3', '--', 'node', 'a.js']).pprof.out, '');
    assert.equal(parseCli(['compare', '--base', 'HEAD', '--pprof', 'x.pb.gz', '--', 'node', 'a.js']).pprof.out, path.resolve('x.pb.gz'));
    assert.equal(parseCli(['profile', '--', 'node', 'a.js']).pprof.out, undefined);
    assert.deepEqual(parseCli(['report', '--diff', 'prod.pb.gz', 'local.cpuprofile']).files, ['prod.pb.gz', 'local.cpuprofile']);
  });

  for (const [argv, pattern] of [
    [['report', '--pprof', '--json', 'x.pb.gz'], /needs the path of the file to write/],
    [['report', '--label', 'novalue', 'x.pb.gz'], /expected KEY=VALUE/],
    [['report', '--map-path', '/app', 'x.pb.gz'], /expected FROM=TO/],
    [['profile', '--label', 'a=b', '--', 'node', 'a.js'], /use them with `hotpath report`/],
    [['verify', '--pprof', '--', 'node', 'a.js'], /--pprof works with `hotpath report`, `profile`, `compare` and `startup`/],
  ] as const) {
    it(`rejects ${argv.join(' ')}`, () => {
      assert.throws(() => parseCli([...argv]), (err) => isHotpathError(err, ErrorCode.InvalidOption) && pattern.test(err.message));
    });
  }
});
