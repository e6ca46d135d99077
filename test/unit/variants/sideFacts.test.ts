import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCli } from '../../../src/cli/args';
import { ErrorCode, isHotpathError } from '../../../src/core/common/errors';
import { entryFile } from '../../../src/core/variants/entry';
import { git } from '../../../src/core/variants/git';
import { repositoryRelative } from '../../../src/core/variants/paths';
import { checkSidesDiffer, type SideIdentity } from '../../../src/core/variants/sameSides';
import { inWorktree, resolveCommit } from '../../../src/core/variants/worktree';
import { renderStatus } from '../../../src/vscode/status/render';
import { Lexer, type Token } from 'marked';
import { HOSTILE_NAMES } from '../../hostileText';

/** What a comparison's sides are: their files, whether they differ at all, and what is said when they cannot be made. */
describe('comparison sides: what each runs', () => {
  let dir: string;
  const write = (file: string, text = '') => { fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true }); fs.writeFileSync(path.join(dir, file), text); };
  beforeEach(() => { dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-sidefacts-'))); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds the file a command starts: node flags skipped, npm scripts followed, wrappers looked through', () => {
    write('app/server.js');
    write('app/dist/main.js');
    write('app/src/app.ts');
    write('app/package.json', JSON.stringify({ scripts: { start: 'node server.js', prod: 'npm run build && NODE_ENV=production node dist/main', piped: 'node server.js | pino-pretty' } }));
    const cwd = path.join(dir, 'app');
    const file = (f: string) => path.join(cwd, f);
    assert.equal(entryFile(['node', 'server.js', '--port', '1'], cwd), file('server.js'));
    assert.equal(entryFile(['node', '-r', 'dotenv/config', '--max-old-space-size=512', 'dist/main'], cwd), file('dist/main.js'));
    assert.equal(entryFile([process.execPath, '--import', 'tsx', 'src/app.ts'], cwd), file('src/app.ts'));
    assert.equal(entryFile(['npm', 'start'], cwd), file('server.js'));
    assert.equal(entryFile(['npm', 'run', 'prod'], cwd), file('dist/main.js'), 'the last command of the script, past its variable');
    assert.equal(entryFile(['npx', 'tsx', 'src/app.ts'], cwd), file('src/app.ts'));
    assert.equal(entryFile(['cross-env', 'NODE_ENV=production', 'node', 'dist/main.js'], cwd), file('dist/main.js'));
    assert.equal(entryFile(['node', '-e', 'require("./server.js")'], cwd), null);
    assert.equal(entryFile(['npm', 'run', 'piped'], cwd), null);
    assert.equal(entryFile(['node', 'missing.js'], cwd), null);
  });

  it('matches a path reached through a symlink to the repository by its real location', () => {
    write('real/repo/server.js');
    write('real/repo/lib/a.js');
    write('elsewhere/x.js');
    fs.symlinkSync(path.join(dir, 'real/repo'), path.join(dir, 'link'));
    const repo = path.join(dir, 'real/repo');
    assert.equal(repositoryRelative(repo, path.join(dir, 'link')), '');
    assert.equal(repositoryRelative(repo, path.join(dir, 'link/lib/a.js')), path.join('lib', 'a.js'));
    assert.equal(repositoryRelative(repo, path.join(dir, 'link/not-yet/out.json')), path.join('not-yet', 'out.json'), 'a path that does not exist yet, under the link');
    assert.equal(repositoryRelative(repo, path.join(dir, 'elsewhere/x.js')), undefined);
    assert.equal(repositoryRelative(repo, path.join(dir, 'real/repo-other/x.js')), undefined, 'a sibling whose name starts like the repository is outside it');
    // What compare and startup map into a revision's worktree.
    const wt = { root: path.join(dir, 'wt'), repoRoot: repo };
    assert.equal(inWorktree(path.join(dir, 'link/lib/a.js'), wt), path.join(dir, 'wt/lib/a.js'));
    assert.equal(inWorktree(path.join(dir, 'link'), wt), path.join(dir, 'wt'));
    assert.equal(inWorktree(path.join(dir, 'elsewhere/x.js'), wt), path.join(dir, 'elsewhere/x.js'));
  });

  describe('whether the sides differ', () => {
    const id = (over: Partial<SideIdentity> = {}): SideIdentity => ({ code: 'tree abc', codeText: 'the working tree (1a2b3c4, no uncommitted changes)', node: '/usr/bin/node', nodeVersion: null, env: {}, nodeArgs: [], ...over });

    it('refuses the same tree, node and settings — naming what looked different — unless asked for an A/A run', () => {
      assert.throws(() => checkSidesDiffer([{ base: 'HEAD' }, {}], [id({ codeText: '--base HEAD (1a2b3c4)' }), id()], false), (err: unknown) => {
        assert.ok(isHotpathError(err, ErrorCode.InvalidOption));
        assert.match((err as Error).message, /--base HEAD \(1a2b3c4\) has the same files as the working tree \(1a2b3c4, no uncommitted changes\)\. That is an A\/A comparison.*make your change first.*--allow-same-sides/);
        return true;
      });
      assert.throws(() => checkSidesDiffer([{ node: 'v20' }, { node: '20' }], [id({ nodeVersion: '20.20.2' }), id({ nodeVersion: '20.20.2' })], false), /--node v20 and --node 20 are one binary, \/usr\/bin\/node \(Node 20\.20\.2\)/);
      const asked = checkSidesDiffer([{ base: 'HEAD' }, {}], [id(), id()], true);
      assert.deepEqual(asked.map((w) => w.code), ['SIDES_IDENTICAL']);
    });

    it('a variable or node flag that differs is a real difference (how an A/A calibration is spelled); so is another tree or binary', () => {
      assert.deepEqual(checkSidesDiffer([{ env: { X: 'a' } }, { env: { X: 'b' } }], [id({ env: { X: 'a' } }), id({ env: { X: 'b' } })], false), []);
      assert.deepEqual(checkSidesDiffer([{}, {}], [id({ nodeArgs: ['--no-opt'] }), id()], false), []);
      assert.deepEqual(checkSidesDiffer([{ base: 'HEAD' }, {}], [id({ code: 'tree abc' }), id({ code: 'working tree with changes' })], false), []);
      assert.deepEqual(checkSidesDiffer([{ node: '22' }, { node: '24' }], [id({ node: '/a/node', nodeVersion: '22.1.0' }), id({ node: '/b/node', nodeVersion: '24.1.0' })], false), []);
    });

    it('in another command\'s words: startup\'s hint, a bisect list\'s entries and flag', () => {
      const wording = { command: 'hotpath startup', subject: 'Entries 1 and 3 of --bisect-node', names: ['1', '3'] as [string, string], revisionFlag: '--bisect-rev', nodeFlag: '--bisect-node' };
      assert.throws(() => checkSidesDiffer([{ node: '20' }, { node: '20' }], [id({ nodeVersion: '20.20.2' }), id({ nodeVersion: '20.20.2' })], false, wording),
        /Entries 1 and 3 of --bisect-node would run the same files on the same Node with the same settings: --bisect-node 20 twice runs one binary, \/usr\/bin\/node \(Node 20\.20\.2\)\..*use hotpath startup --allow-same-sides\.$/);
      assert.throws(() => checkSidesDiffer([{ base: 'c1' }, { base: 'c1' }], [id({ codeText: '--bisect-rev c1 (1a2b3c4)' }), id({ codeText: '--bisect-rev c1 (1a2b3c4)' })], false, wording), /To compare, name revisions whose files differ\./);
      const two = checkSidesDiffer([{ node: '20' }, { node: '/opt/node' }], [id({ nodeVersion: '20.20.2' }), id({ node: '/opt/node', nodeVersion: '20.20.2' })], false, wording);
      assert.match(two[0].message, /^Entries 1 and 3 of --bisect-node run Node 20\.20\.2, from two binaries \(1: \/usr\/bin\/node, 3: \/opt\/node\).*give --bisect-node two different ones/);
    });

    it('one Node version from two binaries is run, with a warning that says what it measures', () => {
      const w = checkSidesDiffer([{ node: '20' }, { node: '/opt/custom/node' }], [id({ node: '/usr/bin/node', nodeVersion: '20.20.2' }), id({ node: '/opt/custom/node', nodeVersion: '20.20.2' })], false);
      assert.deepEqual(w.map((x) => x.code), ['SAME_NODE_VERSION_TWO_BINARIES']);
      assert.match(w[0].message, /Both sides run Node 20\.20\.2, from two binaries \(A: \/usr\/bin\/node, B: \/opt\/custom\/node\)/);
    });
  });

  describe('messages that say what would work', () => {
    const gitIn = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'ignore' });

    it('--base -x: a revision cannot start with \'-\', not "use --base=-XYZ"', async () => {
      assert.throws(() => parseCli(['compare', '--base', '-x', '--', 'node', 'a.js']), (err: Error) => {
        assert.ok(!err.message.includes('--base=-'), err.message);
        assert.match(err.message, /^--base -x: a git revision cannot start with '-'.*--base HEAD~1/);
        return true;
      });
      // The `=` form reaches the revision check, which says the same.
      await assert.rejects(resolveCommit(dir, parseCli(['compare', '--base=-x', '--', 'node', 'a.js']).compare!.sides[0].base!), /--base -x: a revision cannot start with '-'/);
    });

    it('a repository with no commits is told to commit first; one with a single commit is not offered HEAD~1', async () => {
      gitIn(dir, 'init', '-q');
      await assert.rejects(resolveCommit(dir, 'HEAD~1'), (err: Error) => {
        assert.match(err.message, /has no commits yet, so there is no revision to compare with\. Commit the code first/);
        assert.ok(!err.message.includes('HEAD~1 or'), err.message);
        return true;
      });
      write('a.js');
      gitIn(dir, 'add', '-A');
      gitIn(dir, 'commit', '-qm', 'one');
      await assert.rejects(resolveCommit(dir, 'HEAD~1'), /git knows no such commit .* e\.g\. --base HEAD \(its only commit; your uncommitted changes are side B\)/);
    });

    it('git failing is GIT_FAILED (exit 1), not a usage error', async () => {
      await assert.rejects(git(['worktree', 'add', path.join(dir, 'x'), 'HEAD'], dir), (err: unknown) => isHotpathError(err) && err.code === 'GIT_FAILED');
    });
  });

  it('the VS Code tooltip shows each side\'s folder, file, node and dependencies, program text in code spans', () => {
    const side = (label: string, cwd: string) => ({ label, nodeVersion: 'v20.20.2', gitRev: '1a2b3c4d5e', cwd, entry: path.join(cwd, 'server.js'), nodePath: '/usr/bin/node', dependencies: 'reused the working tree\'s node_modules (package-lock.json is the same in both trees)' });
    const comparison = { verdict: 'no-significant-change', metrics: {}, moved: [], summary: '', method: 'Paired t-test', correction: 'Bonferroni', confidenceLevel: 0.95, metricConfidenceLevel: 0.95, design: 'paired', n: { a: 2, b: 2 }, tested: [], warnings: [], pairs: 2, elapsedMs: 1000, stopReason: 'fixed', primary: 'wallMs' } as any;
    const r = renderStatus({ kind: 'compared', sides: [side('HEAD (1a2b3c4)', '/tmp/hotpath-base-1a2b3c4d-x'), side('working tree', '/home/u/app')], comparison, warnings: [], hasFlamegraph: false });
    assert.ok(r.tooltip.includes('**A** ran `/tmp/hotpath-base-1a2b3c4d-x/server.js` in `/tmp/hotpath-base-1a2b3c4d-x` · node `/usr/bin/node` · dependencies: reused'), r.tooltip);
    assert.ok(r.tooltip.includes('**B** ran `/home/u/app/server.js` in `/home/u/app`'), r.tooltip);
    // A hostile folder, file or dependency text makes no link, HTML or heading: the only link is ours.
    const tokens = (md: string): Token[] => {
      const out: Token[] = [];
      const walk = (list: Token[] | undefined) => { for (const t of list ?? []) { out.push(t); walk((t as { tokens?: Token[] }).tokens); walk((t as { items?: Token[] }).items); } };
      walk(Lexer.lex(md, { gfm: true }));
      return out;
    };
    for (const name of HOSTILE_NAMES) {
      const hostile = { ...side(name, `/tmp/${name}`), entry: `/tmp/${name}/x.js`, nodePath: name, dependencies: name };
      const t = renderStatus({ kind: 'compared', sides: [hostile, side('b', '/x')], comparison, warnings: [], hasFlamegraph: false }).tooltip;
      const bad = tokens(t).filter((k) => k.type === 'html' || k.type === 'heading' || k.type === 'image' || (k.type === 'link' && (k as Token & { href: string }).href !== 'command:hotpath.compareAgain'));
      assert.deepEqual(bad.map((k) => k.raw), [], JSON.stringify(t));
      assert.doesNotMatch(t, /[\r\u2028\u2029\u0085]/);
    }
  });
});
