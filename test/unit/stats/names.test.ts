// Names users give stored results (issue 19, item 8): checked before anything runs when they come from
// the command line, and made a file name by one helper everywhere, so a store path stays in its store
// and two long names do not share a file.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { parseCli } from '../../../src/cli/args';
import { ErrorCode, isHotpathError } from '../../../src/core/common/errors';
import { checkedName, profileStem, sanitizeBaselineName } from '../../../src/core/stats/baselineName';
import { BaselineStore } from '../../../src/core/stats/baselineStore';
import { LeakStore } from '../../../src/core/memory/leakStore';
import { benchBaselinePath } from '../../../src/core/bench/store';

const usage = (re: RegExp) => (e: unknown) => isHotpathError(e, ErrorCode.InvalidOption) && re.test(e.message);
const PREFIX = 'checkout-service-with-a-rather-long-descriptive-name-for-the-region-eu-west-1';

describe('names of stored results', () => {
  it('a name is never a path: traversal and separators become part of one file name, inside the store', () => {
    const store = '/w/.hotpath/leaks';
    for (const name of ['/../../../../tmp/x', 'sub/dir', '..\\..\\x', 'a/../../b', `${'../'.repeat(40)}etc/passwd`]) {
      const file = new LeakStore(store).fileFor(name);
      assert.equal(path.dirname(file), store, `${name} → ${file}`);
      assert.doesNotMatch(path.basename(file), /[\\/]|^\.\.?\.json$/);
    }
    assert.throws(() => new LeakStore(store).fileFor('..'), usage(/at least one letter or digit/));
    assert.equal(sanitizeBaselineName('/../../../../tmp/x'), 'tmp-x');
    assert.equal(sanitizeBaselineName('sub/dir'), 'sub-dir');
    assert.equal(profileStem('/../../x'), 'x');
    assert.equal(profileStem('///'), 'profile');
  });

  it('names cut to 64 characters keep a hash of the whole name: `…-staging` and `…-production` do not share a file', () => {
    const staging = sanitizeBaselineName(`${PREFIX}-staging`);
    const production = sanitizeBaselineName(`${PREFIX}-production`);
    assert.notEqual(staging, production);
    for (const s of [staging, production]) {
      assert.equal(s.length <= 64, true, s);
      assert.match(s, /^checkout-service-with-a-rather-long-descriptive-name-fo-[0-9a-f]{8}$/);
    }
    // Stable, and still case- and spelling-insensitive the way short names are.
    assert.equal(sanitizeBaselineName(`${PREFIX.toUpperCase()}-Staging`), staging);
    assert.equal(sanitizeBaselineName('Main API'), 'main-api');
    assert.equal(sanitizeBaselineName('x'.repeat(64)), 'x'.repeat(64));
    // Every store goes through the same helper.
    assert.notEqual(new BaselineStore('/b').fileFor(`${PREFIX}-staging`), new BaselineStore('/b').fileFor(`${PREFIX}-production`));
    assert.notEqual(new LeakStore('/l').fileFor(`${PREFIX}-staging`), new LeakStore('/l').fileFor(`${PREFIX}-production`));
    assert.notEqual(benchBaselinePath('/c', `${PREFIX}-staging`), benchBaselinePath('/c', `${PREFIX}-production`));
  });

  it('on the command line, a name that is a path or has no letter is refused before the run, saying what to do', () => {
    assert.throws(() => checkedName('/../../../../tmp/x', '--name'), usage(/--name takes a name, not a path \(got '\/\.\.\/\.\.\/\.\.\/\.\.\/tmp\/x'\): use letters, digits, '\.', '_' and '-'; --out chooses the directory/));
    assert.throws(() => checkedName('a\\b', '--save'), usage(/^--save takes a name, not a path/));
    assert.throws(() => checkedName('---', '--baseline'), usage(/^--baseline must contain at least one letter or digit \(got '---'\)/));
    assert.equal(checkedName('Main API', '--name'), 'Main API');
    const app = ['--', 'node', 'app.js'];
    for (const args of [
      ['profile', '--name', 'sub/dir', ...app], ['profile', '--script', '--name', '/../x', ...app], ['leak', '--name', '../x', ...app],
      ['startup', '--name', 'a/b', ...app], ['compare', '--node', '22', '--node', '24', '--name', 'a/b', ...app],
      ['baseline', '--name', '/tmp/x', ...app], ['verify', '--name', 'x/..', ...app],
    ]) assert.throws(() => parseCli(args), usage(/^--name takes a name, not a path/), args.join(' '));
    assert.throws(() => parseCli(['bench', 'a.bench.mjs', '--save', 'runs/today']), usage(/^--save takes a name, not a path/));
    assert.throws(() => parseCli(['bench', 'a.bench.mjs', '--baseline', '../x']), usage(/^--baseline takes a name, not a path/));
    assert.equal(parseCli(['leak', '--name', 'Orders API', ...app]).name, 'Orders API');
  });
});
