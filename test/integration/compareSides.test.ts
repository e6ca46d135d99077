import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { neverCancelled } from '../../src/core/common/cancellation';
import { silentLogger } from '../../src/core/common/logger';
import { resolveSides } from '../../src/core/variants/sides';
import { marker, processesWith, runCli, waitForNoProcesses } from '../helpers/cli';

/**
 * The sides of `hotpath compare` really are what they say: a revision runs its own files — its workspace
 * packages, through a symlinked checkout, after a --prepare that writes into node_modules — and an A/A
 * comparison by accident is refused. Every app here appends one JSON line per run to RAN_LOG saying
 * which folder it ran in and which files it loaded: the tests assert those facts, never a timing.
 */

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
const write = (dir: string, file: string, text: string) => { fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true }); fs.writeFileSync(path.join(dir, file), text); };
const npmInstall = (dir: string) => execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'ignore' });
const worktrees = (dir: string) => git(dir, 'worktree', 'list').split('\n').length;
/** A side's worktree is gone after the run: its path as reported (this machine's tmpdir is not behind a symlink otherwise). */
const real = (file: string) => { try { return fs.realpathSync(file); } catch { return file; } };
const inside = (root: string, file: string) => { const rel = path.relative(real(root), real(file)); return !rel.startsWith('..') && !path.isAbsolute(rel); };

interface Ran { cwd: string; value: string; file: string }
/**
 * The runs' own records, split by what they ran: the revision's value (side A) or the working tree's
 * (side B). Each side runs as often as the other (a warm-up round and the pairs), so both halves are equal.
 */
function runsByValue(log: string, revision: string, working: string): { a: Ran[]; b: Ran[] } {
  const runs: Ran[] = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const split = { a: runs.filter((r) => r.value === revision), b: runs.filter((r) => r.value === working) };
  assert.ok(split.a.length >= 2, `side A ran the revision's code (${revision}): ${JSON.stringify(runs)}`);
  assert.equal(split.a.length, split.b.length, `as many runs of the revision as of the working tree: ${JSON.stringify(runs)}`);
  assert.equal(split.a.length + split.b.length, runs.length, JSON.stringify(runs));
  return split;
}

/**
 * The comparison ran to its end. Its verdict is not asserted: with two pairs of noisy runs either verdict
 * comes up by chance, and "slower" exits 3 — what these tests check is which files each side ran.
 */
const assertRan = (run: { code: number | null; stderr: string }) => assert.ok(run.code === 0 || run.code === 3, `exit ${run.code}: ${run.stderr}`);

/** Script-mode comparison flags that keep a run short: what ran is asserted, not how fast. */
const QUICK = ['--script', '--pairs', '2', '--no-profile', '--json'];

describe('hotpath compare: a revision runs its own workspace packages (npm workspaces)', function () {
  this.timeout(240_000);
  let dir: string;
  let log: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-mono-'));
    log = path.join(dir, 'ran.jsonl');
    const repo = path.join(dir, 'repo');
    write(repo, '.gitignore', 'node_modules/\n.hotpath/\n');
    write(repo, 'package.json', JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*', 'apps/*'] }));
    write(repo, 'packages/lib/package.json', JSON.stringify({ name: 'mylib', version: '1.0.0', main: 'index.js', dependencies: { ms: '2.1.3' } }));
    write(repo, 'packages/lib/index.js', "exports.VALUE = 'lib at HEAD'; exports.second = require('ms')('1s');\n");
    write(repo, 'apps/cli/package.json', JSON.stringify({ name: 'cli', version: '1.0.0', private: true, dependencies: { mylib: '1.0.0' } }));
    write(repo, 'apps/cli/run.js', [
      "const fs = require('node:fs');",
      "const lib = require('mylib');",
      "fs.appendFileSync(process.env.RAN_LOG, JSON.stringify({ cwd: process.cwd(), value: lib.VALUE, file: fs.realpathSync(require.resolve('mylib')) }) + '\\n');",
    ].join('\n'));
    git(repo, 'init', '-q');
    npmInstall(repo); // node_modules/mylib -> ../packages/lib, node_modules/ms from the registry
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'lib at HEAD');
    // The change under test: the workspace package, uncommitted; the lock file stays the same, so node_modules are reused.
    write(repo, 'packages/lib/index.js', "exports.VALUE = 'lib in the working tree'; exports.second = require('ms')('1s');\n");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('side A loads packages/lib from the revision, side B from the working tree; the user\'s node_modules are untouched', async () => {
    const repo = path.join(dir, 'repo');
    const linkBefore = fs.readlinkSync(path.join(repo, 'node_modules', 'mylib'));
    const tag = marker();
    const run = await runCli(['compare', '--base', 'HEAD', ...QUICK, '--env', `RAN_LOG=${log}`, '--cwd', path.join(repo, 'apps', 'cli'), '--', 'node', 'run.js', tag], { cwd: repo, timeoutMs: 200_000 });
    assertRan(run);
    const doc = run.json();
    const [a, b] = doc.sides;
    // Before the fix every run loaded the working tree's lib (side A's node_modules/mylib led there).
    const runs = runsByValue(log, 'lib at HEAD', 'lib in the working tree');
    for (const r of runs.a) assert.ok(!inside(repo, r.file) && !inside(repo, r.cwd), `side A's lib and folder are not the working tree's: ${JSON.stringify(r)}`);
    for (const r of runs.a) assert.ok(inside(a.root, r.file) && inside(a.root, r.cwd), `side A ran in its worktree: ${JSON.stringify(r)} (root ${a.root})`);
    for (const r of runs.b) assert.ok(inside(repo, r.file), JSON.stringify(r));
    assert.match(a.dependencies, /^reused the working tree's node_modules \(package-lock\.json is the same in both trees\); workspace packages from the revision: .*node_modules\/mylib → packages\/lib/);
    assert.ok(inside(a.root, a.entry) && a.entry.endsWith(path.join('apps', 'cli', 'run.js')), `A's entry is the worktree's: ${a.entry} (root ${a.root})`);
    assert.equal(b.entry, fs.realpathSync(path.join(repo, 'apps', 'cli', 'run.js')));
    assert.equal(fs.readlinkSync(path.join(repo, 'node_modules', 'mylib')), linkBefore, 'the working tree\'s workspace link is as it was');
    assert.equal(worktrees(repo), 1, 'the worktree is removed');
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });
});

describe('hotpath compare --base through a symlinked checkout', function () {
  this.timeout(240_000);
  let dir: string;
  let repo: string;
  let link: string;
  let log: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-symlinked-'));
    repo = path.join(dir, 'real', 'app');
    link = path.join(dir, 'link');
    log = path.join(dir, 'ran.jsonl');
    write(repo, '.gitignore', '.hotpath/\n');
    write(repo, 'value.js', "module.exports = 'at HEAD';\n");
    write(repo, 'run.js', [
      "const fs = require('node:fs');",
      "fs.appendFileSync(process.env.RAN_LOG, JSON.stringify({ cwd: process.cwd(), value: require('./value.js'), file: fs.realpathSync(require.resolve('./value.js')) }) + '\\n');",
    ].join('\n'));
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'at HEAD');
    write(repo, 'value.js', "module.exports = 'in the working tree';\n");
    fs.symlinkSync(repo, link);
  });
  afterEach(() => fs.rmSync(log, { force: true }));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const [name, command] of [['a relative command', ['node', 'run.js']], ['a command file named through the symlink', ['node', '<link>/run.js']]] as const) {
    it(`--cwd through the symlink, ${name}: side A runs the revision in its worktree`, async () => {
      const tag = marker();
      const run = await runCli(['compare', '--base', 'HEAD', ...QUICK, '--env', `RAN_LOG=${log}`, '--cwd', link, '--', ...command.map((w) => w.replace('<link>', link)), tag], { cwd: dir, timeoutMs: 200_000 });
      assertRan(run);
      const doc = run.json();
      const [a] = doc.sides;
      // Before the fix side A ran in the symlink, the working tree: every run said 'in the working tree'.
      const runs = runsByValue(log, 'at HEAD', 'in the working tree');
      assert.ok(runs.a.every((r) => !inside(repo, r.cwd) && !inside(repo, r.file)), `side A ran outside the working tree: ${JSON.stringify(runs.a)}`);
      assert.ok(runs.b.every((r) => inside(repo, r.file)), JSON.stringify(runs.b));
      assert.ok(inside(a.root, a.cwd) && !inside(repo, a.cwd), `side A's folder is the worktree: ${a.cwd}`);
      assert.ok(inside(a.root, a.entry), `side A's entry is the worktree's: ${a.entry}`);
      assert.ok(runs.a.every((r) => inside(a.root, r.file)), JSON.stringify(runs.a));
      assert.equal(worktrees(repo), 1);
      assert.deepEqual(await waitForNoProcesses(tag), []);
    });
  }

  it('VS Code\'s path (core resolveSides, the folder opened through the symlink) maps the folder and file into the worktree', async () => {
    const logged: string[] = [];
    const logger = { ...silentLogger, info: (m: string) => logged.push(m) };
    const resolved = await resolveSides({ command: ['node', path.join(link, 'run.js')], cwd: link }, [{ base: 'HEAD' }, {}], { token: neverCancelled, logger, onProgress: () => undefined });
    try {
      const [a, b] = resolved.sides;
      // VS Code's log (the core logs through its output channel): each side's proof, one line each.
      assert.ok(logged.includes(`Side A "HEAD (${a.gitRev!.slice(0, 7)})": runs ${a.entry} in ${a.cwd}; git ${a.gitRev!.slice(0, 10)}; node ${a.nodePath}; dependencies: no package.json`), logged.join('\n'));
      assert.ok(logged.some((l) => l.startsWith(`Side B "working tree (${b.gitRev!.slice(0, 7)} + changes)": runs ${b.entry} in ${link}; git ${b.gitRev!.slice(0, 10)} + uncommitted changes`)), logged.join('\n'));
      const root = a.projectRoot!;
      assert.ok(inside(root, fs.realpathSync(a.cwd)), a.cwd);
      assert.ok(inside(root, fs.realpathSync(a.command[1])), `the command's file is the worktree's: ${a.command[1]}`);
      assert.equal(a.entry, path.join(fs.realpathSync(root), 'run.js'));
      assert.equal(b.entry, fs.realpathSync(path.join(repo, 'run.js')));
    } finally {
      await resolved.dispose();
    }
    assert.equal(worktrees(repo), 1);
  });

  it('refuses a command file outside the repository, which the revision cannot change, and starts nothing', async () => {
    const outside = path.join(dir, 'elsewhere', 'run.js');
    write(dir, 'elsewhere/run.js', "require('node:fs').appendFileSync(process.env.RAN_LOG, JSON.stringify({ cwd: process.cwd(), value: 'outside', file: __filename }) + '\\n');\n");
    const tag = marker();
    const run = await runCli(['compare', '--base', 'HEAD', ...QUICK, '--env', `RAN_LOG=${log}`, '--cwd', repo, '--', 'node', outside, tag], { cwd: dir, timeoutMs: 120_000 });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.json().error.message, /run\.js, the file the command starts, is outside the repository .*both sides would run that one file/);
    assert.ok(!fs.existsSync(log), 'no run started');
    assert.deepEqual(processesWith(tag), []);
    assert.equal(worktrees(repo), 1);
  });
});

describe('hotpath compare --base --prepare: each side prepares its own node_modules', function () {
  this.timeout(240_000);
  let dir: string;
  let repo: string;
  let log: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-prepare-'));
    repo = path.join(dir, 'repo');
    log = path.join(dir, 'ran.jsonl');
    write(repo, '.gitignore', 'node_modules/\n.hotpath/\n');
    write(repo, 'package.json', JSON.stringify({ name: 'gen-app', version: '1.0.0', private: true, dependencies: { ms: '2.1.3' } }));
    // A code generator in the style of `prisma generate`: the schema in the tree, the client in node_modules.
    write(repo, 'gen.js', [
      "const fs = require('node:fs');",
      "const schema = fs.readFileSync('schema.txt', 'utf8').trim();",
      "fs.mkdirSync('node_modules/.gen', { recursive: true });",
      "fs.writeFileSync('node_modules/.gen/client.js', `module.exports = ${JSON.stringify(schema)};\\n`);",
      "fs.appendFileSync('node_modules/.gen/history.log', `${process.cwd()} ${schema}\\n`);",
    ].join('\n'));
    write(repo, 'run.js', [
      "const fs = require('node:fs');",
      "fs.appendFileSync(process.env.RAN_LOG, JSON.stringify({ cwd: process.cwd(), value: require('./node_modules/.gen/client.js'), file: fs.realpathSync(require.resolve('./node_modules/.gen/client.js')) }) + '\\n');",
    ].join('\n'));
    write(repo, 'schema.txt', 'schema v1\n');
    git(repo, 'init', '-q');
    npmInstall(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'schema v1');
    write(repo, 'schema.txt', 'schema v2\n');
    execFileSync(process.execPath, ['gen.js'], { cwd: repo }); // the user generated the client of their working tree
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('side A runs the client generated from the revision, and the user\'s node_modules get only side B\'s prepare', async () => {
    const tag = marker();
    const run = await runCli(['compare', '--base', 'HEAD', ...QUICK, '--prepare', 'node gen.js', '--env', `RAN_LOG=${log}`, '--cwd', repo, '--', 'node', 'run.js', tag], { cwd: repo, timeoutMs: 200_000 });
    assertRan(run);
    const doc = run.json();
    const [a] = doc.sides;
    // Before the fix both prepares wrote the one client in the user's node_modules, side B's last: every run read v2.
    const runs = runsByValue(log, 'schema v1', 'schema v2');
    assert.ok(runs.a.every((r) => inside(a.root, r.file) && !inside(repo, r.file)), `side A's client is its own: ${JSON.stringify(runs.a)}`);
    assert.ok(runs.b.every((r) => inside(repo, r.file)), JSON.stringify(runs.b));
    // The user's node_modules: the set-up's generate and side B's prepare, nothing from the worktree.
    const history = fs.readFileSync(path.join(repo, 'node_modules/.gen/history.log'), 'utf8').trim().split('\n');
    assert.deepEqual(history, [`${fs.realpathSync(repo)} schema v2`, `${fs.realpathSync(repo)} schema v2`]);
    assert.match(a.dependencies, /^copied the working tree's node_modules, so --prepare writes only into the revision's \(package-lock\.json is the same in both trees\)/);
    assert.equal(worktrees(repo), 1);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });
});

describe('hotpath compare: an A/A comparison by accident is refused', function () {
  this.timeout(240_000);
  let dir: string;
  let log: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-aa-'));
    log = path.join(dir, 'ran.jsonl');
    write(dir, '.gitignore', '.hotpath/\nran.jsonl\n');
    write(dir, 'run.js', "require('node:fs').appendFileSync(process.env.RAN_LOG, JSON.stringify({ cwd: process.cwd(), value: 'x', file: __filename }) + '\\n');\n");
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'one');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'empty: the same tree');
  });
  afterEach(() => fs.rmSync(log, { force: true }));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const base of ['HEAD', 'HEAD~1']) {
    it(`--base ${base} on a clean tree (${base === 'HEAD' ? 'the same commit' : 'another commit with the same files'}): a usage error before anything runs`, async () => {
      const tag = marker();
      const run = await runCli(['compare', '--base', base, ...QUICK, '--env', `RAN_LOG=${log}`, '--', 'node', 'run.js', tag], { cwd: dir });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.json().error.message, new RegExp(`Both sides would run the same files .*--base ${base} \\([0-9a-f]{7}\\) has the same files as the working tree \\([0-9a-f]{7}, no uncommitted changes\\).*--allow-same-sides`));
      assert.ok(!fs.existsSync(log), 'nothing ran');
      assert.deepEqual(processesWith(tag), []);
      assert.equal(worktrees(dir), 1, 'nothing was checked out');
    });
  }

  it('--node v20 and --node 20 (one binary): refused, naming it', async () => {
    const major = process.versions.node.split('.')[0];
    const run = await runCli(['compare', '--node', `v${major}`, '--node', major, ...QUICK, '--env', `RAN_LOG=${log}`, '--', 'node', 'run.js'], { cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.json().error.message, new RegExp(`--node v${major} and --node ${major} are one binary, /\\S+ \\(Node ${major}\\.`));
    assert.ok(!fs.existsSync(log), 'nothing ran');
  });

  it('--allow-same-sides runs the A/A comparison on purpose and says so; each side states its folder, file, node and dependencies', async () => {
    const run = await runCli(['compare', '--base', 'HEAD', '--allow-same-sides', '--script', '--pairs', '2', '--no-profile', '--env', `RAN_LOG=${log}`, '--', 'node', 'run.js'], { cwd: dir, timeoutMs: 200_000 });
    assertRan(run);
    assert.match(run.stdout, /\[SIDES_IDENTICAL\] An A\/A comparison, as asked \(--allow-same-sides\)/);
    // Human output: per side its folder, the file it starts, the node binary and where its dependencies came from.
    const real = fs.realpathSync(dir);
    assert.match(run.stdout, /A: HEAD \([0-9a-f]{7}\).*\n {5}in \/\S*hotpath-base-[0-9a-f]{8}-\S+ · runs run\.js · node \/\S+\n {5}dependencies: no package\.json\n/);
    assert.ok(run.stdout.includes(`\n     in ${real} · runs run.js · node `), run.stdout);
    assert.match(run.stdout, /B: working tree .*\n.*\n {5}dependencies: the working tree's own \(nothing reused\)\n/);
    assert.ok(fs.readFileSync(log, 'utf8').trim().split('\n').length >= 4);
    assert.equal(worktrees(dir), 1);
  });
});

describe('hotpath compare: git failing is a failure (exit 1), not a usage error', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-gitfail-'));
    const repo = path.join(dir, 'repo');
    write(repo, 'run.js', '');
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'one');
    write(repo, 'run.js', '// changed\n');
    // A git whose `worktree add` fails (a full disk, a locked repository), everything else the real git.
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    write(dir, 'bin/git', `#!/bin/sh\nif [ "$1" = worktree ] && [ "$2" = add ]; then echo "fatal: could not create work tree dir: No space left on device" >&2; exit 128; fi\nexec ${real} "$@"\n`);
    fs.chmodSync(path.join(dir, 'bin/git'), 0o755);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a failed `git worktree add` exits 1 with git\'s message and code GIT_FAILED', async () => {
    const repo = path.join(dir, 'repo');
    const run = await runCli(['compare', '--base', 'HEAD', ...QUICK, '--', 'node', 'run.js'], { cwd: repo, env: { PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH}` } });
    assert.equal(run.code, 1, run.stderr);
    const error = run.json().error;
    assert.equal(error.code, 'GIT_FAILED');
    assert.match(error.message, /No space left on device/);
  });
});
