import { strict as assert } from 'node:assert';
import { parseCli } from '../../../src/cli/args';

// `--alpha` for the interleaved startup comparisons (--node, --base, --bisect-*): a bisect's probes of
// unchanged revisions are A/A comparisons, so their chance of a false "slower" is what the user sets.
describe('CLI arguments: --alpha for startup variants', () => {
  it('is taken by startup --bisect-rev and startup --node, and passed as the interleaved alpha', () => {
    assert.equal(parseCli(['startup', '--bisect-rev', 'a,b,c', '--pairs', '8', '--alpha', '0.001', '--', 'node', 'cli.js']).alpha, 0.001);
    assert.equal(parseCli(['startup', '--node', '22', '--node', '24', '--alpha', '0.01', '--', 'node', 'cli.js']).alpha, 0.01);
  });

  it('is refused by a plain startup measurement, which makes no verdict', () => {
    assert.throws(() => parseCli(['startup', '--alpha', '0.01', '--', 'node', 'cli.js']), /--alpha works with `hotpath verify`, `hotpath compare` and `hotpath startup --node\/--base\/--bisect-\*`/);
  });
});
