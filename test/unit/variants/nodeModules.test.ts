import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource, neverCancelled } from '../../../src/core/common/cancellation';
import { mirrorNodeModules } from '../../../src/core/variants/nodeModules';

/**
 * A revision's node_modules rebuilt from the working tree's: workspace links (npm, pnpm, yarn) and
 * `file:` dependencies lead into the worktree, registry packages stay shared (or copied), and the
 * working tree's node_modules are never written.
 */
describe('node_modules of a revision', () => {
  let dir: string;
  let work: string;
  let wt: string;
  const write = (file: string, text = '') => { fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true }); fs.writeFileSync(path.join(dir, file), text); };
  const link = (target: string, at: string) => { fs.mkdirSync(path.dirname(path.join(dir, at)), { recursive: true }); fs.symlinkSync(target, path.join(dir, at)); };
  const real = (file: string) => fs.realpathSync(path.join(dir, file));
  /** Every file under a folder with its content: the working tree's node_modules before and after must be equal. */
  const snapshot = (root: string): string[] => fs.readdirSync(root, { withFileTypes: true, recursive: true }).map((e) => {
    const file = path.join(e.parentPath ?? (e as any).path, e.name);
    return e.isSymbolicLink() ? `${file} -> ${fs.readlinkSync(file)}` : e.isFile() ? `${file}: ${fs.readFileSync(file, 'utf8')}` : file;
  }).sort();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-nm-'));
    work = path.join(dir, 'work');
    wt = path.join(dir, 'wt');
    // npm workspaces: a registry package, a workspace package, a scoped workspace package, a `file:` dependency, a bin.
    write('work/node_modules/ms/index.js', 'module.exports = "ms";');
    write('work/node_modules/ms/bin.js', '');
    link('../packages/lib', 'work/node_modules/mylib');
    link('../../packages/scoped', 'work/node_modules/@acme/scoped');
    write('work/node_modules/@acme/registry/index.js', '');
    link('../vendor/local', 'work/node_modules/local');
    link('../ms/bin.js', 'work/node_modules/.bin/ms');
    link('../mylib/cli.js', 'work/node_modules/.bin/mylib');
    write('work/node_modules/.package-lock.json', '{}');
    // pnpm keeps a workspace package's own dependencies beside it, links into its store and to other workspace packages.
    write('work/node_modules/.pnpm/dep@1.0.0/node_modules/dep/index.js', 'module.exports = "dep";');
    link('../../../node_modules/.pnpm/dep@1.0.0/node_modules/dep', 'work/packages/lib/node_modules/dep');
    link('../../../scoped', 'work/packages/lib/node_modules/@acme/scoped');
    for (const tree of ['work', 'wt']) {
      write(`${tree}/packages/lib/index.js`, `module.exports = ${JSON.stringify(tree)};`);
      write(`${tree}/packages/lib/cli.js`, '');
      write(`${tree}/packages/scoped/index.js`, '');
      write(`${tree}/vendor/local/index.js`, '');
    }
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('links into the repository lead into the worktree; registry packages stay shared; nothing of the working tree changes', async () => {
    const before = snapshot(work);
    const result = await mirrorNodeModules([''], { working: work, worktree: wt }, 'link', neverCancelled);
    assert.equal(real('wt/node_modules/mylib'), real('wt/packages/lib'));
    assert.equal(real('wt/node_modules/@acme/scoped'), real('wt/packages/scoped'));
    assert.equal(real('wt/node_modules/local'), real('wt/vendor/local'));
    assert.equal(real('wt/node_modules/ms'), real('work/node_modules/ms'), 'a registry package is the working tree\'s (the lock file is the same)');
    assert.equal(real('wt/node_modules/@acme/registry'), real('work/node_modules/@acme/registry'));
    assert.equal(real('wt/node_modules/.bin/mylib'), real('wt/packages/lib/cli.js'), 'a workspace package\'s bin is the revision\'s');
    assert.equal(real('wt/node_modules/.bin/ms'), real('work/node_modules/ms/bin.js'));
    assert.ok(fs.lstatSync(path.join(wt, 'node_modules/.package-lock.json')).isFile(), 'small files are copied, not linked');
    // The workspace package's own node_modules (pnpm): rebuilt too, its links re-pointed.
    assert.equal(real('wt/packages/lib/node_modules/@acme/scoped'), real('wt/packages/scoped'));
    assert.equal(fs.readFileSync(path.join(wt, 'packages/lib/node_modules/dep/index.js'), 'utf8'), 'module.exports = "dep";');
    assert.deepEqual(result.relinked.map((r) => `${r.link} → ${r.target}`).sort(), [
      path.join('node_modules', '@acme', 'scoped') + ' → ' + path.join('packages', 'scoped'),
      path.join('node_modules', 'local') + ' → ' + path.join('vendor', 'local'),
      path.join('node_modules', 'mylib') + ' → ' + path.join('packages', 'lib'),
      path.join('packages', 'lib', 'node_modules', '@acme', 'scoped') + ' → ' + path.join('packages', 'scoped'),
    ].sort());
    assert.deepEqual(result.absent, []);
    // Node resolves the workspace package of the revision from the worktree.
    assert.equal(require(path.join(wt, 'node_modules/mylib')), 'wt');
    assert.deepEqual(snapshot(work), before, 'the working tree\'s node_modules are only read');
  });

  it('copy mode (a side that prepares): packages are the side\'s own, so writing into them leaves the working tree\'s alone', async () => {
    const before = snapshot(work);
    await mirrorNodeModules([''], { working: work, worktree: wt }, 'copy', neverCancelled);
    assert.ok(!fs.lstatSync(path.join(wt, 'node_modules/ms')).isSymbolicLink(), 'copied, not linked');
    fs.writeFileSync(path.join(wt, 'node_modules/ms/index.js'), 'module.exports = "generated by the revision";');
    fs.mkdirSync(path.join(wt, 'node_modules/.pnpm/dep@1.0.0/node_modules/dep/generated'));
    assert.equal(real('wt/node_modules/mylib'), real('wt/packages/lib'), 'workspace links still lead into the worktree');
    assert.equal(real('wt/packages/lib/node_modules/dep'), real('wt/node_modules/.pnpm/dep@1.0.0/node_modules/dep'), 'a link into the store leads to the side\'s copy');
    assert.deepEqual(snapshot(work), before);
  });

  it('names a workspace package the revision does not have, and stops when cancelled', async () => {
    fs.rmSync(path.join(wt, 'vendor'), { recursive: true });
    const result = await mirrorNodeModules([''], { working: work, worktree: wt }, 'link', neverCancelled);
    assert.deepEqual(result.absent, [path.join('vendor', 'local')]);
    const cts = new CancellationTokenSource();
    cts.cancel();
    fs.mkdirSync(path.join(dir, 'wt2'));
    await assert.rejects(mirrorNodeModules([''], { working: work, worktree: path.join(dir, 'wt2') }, 'copy', cts.token), /cancelled/);
  });
});
