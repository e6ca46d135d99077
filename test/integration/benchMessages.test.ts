// `hotpath bench` messages (issue 19, item 11), on real tinybench files (tinybench from npm, through the
// bench-suite fixture's node_modules): a task that calls process.exit is named as what ended the run
// (it was reported as "is tinybench installed?"), and a missing --baseline, --against or --compare target
// is refused before the processes run (it was refused only after every one of them). Each benchmark
// file here appends a line to RUN_LOG when a process starts it, so the test counts the processes run.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, runCli } from '../helpers/cli';

const SUITE = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'bench-suite');

/** A tinybench file as users write one, with a short measurement, that logs each process that runs it. */
function benchFile(tasks: string, after = ''): string {
  return `import { appendFileSync } from 'node:fs';
import { Bench } from 'tinybench';
appendFileSync(process.env.RUN_LOG, 'process\\n');
const bench = new Bench({ time: 20, warmupTime: 5 });
let sink = 0;
${tasks}
await bench.run();
if (sink === 0.5) console.log(sink);
${after}
`;
}

describe('hotpath bench: what ended the run, and targets checked before it', function () {
  this.timeout(120_000);
  let dir: string;
  let log: string;
  const runs = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
  const write = (name: string, text: string) => { fs.writeFileSync(path.join(dir, name), text); return name; };
  const bench = (args: string[]) => runCli(['bench', ...args, '--no-v8', '--json'], { cwd: dir, env: { RUN_LOG: log }, timeoutMs: 110_000 });

  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-messages-')));
    fs.symlinkSync(path.join(SUITE, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
    write('sum.bench.js', benchFile("bench.add('sum', () => { for (let i = 0; i < 100; i++) sink += i; });"));
  });
  beforeEach(() => { log = path.join(dir, `runs-${Date.now()}-${Math.random()}.log`); });
  after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

  it('a task that calls process.exit is named, with its exit code, and what to do', async () => {
    const file = write('quits.bench.js', benchFile("bench.add('sum', () => { sink += 1; }).add('quits', () => { process.exit(0); });"));
    const run = await bench([file, '--runs', '2']);
    assert.equal(run.code, 1, run.stderr);
    const message = run.json().error.message;
    assert.match(message, /quits\.bench\.js: the task 'quits' called process\.exit\(0\), which ended the process with exit code 0 before anything was measured\. A task must return \(or throw\) for the harness to time it: remove the process\.exit call from it\./);
    assert.doesNotMatch(message, /tinybench.*installed/);
    assert.equal(runs(), 1, 'stopped after the first process');
  });

  it('a task that exits while it is measured is named too (tinybench warms up and runs each task)', async () => {
    const file = write('late.bench.js', benchFile("let calls = 0;\nbench.add('sum', () => { sink += 1; }).add('late', () => { if (++calls > 3) process.exit(5); });"));
    const run = await bench([file, '--runs', '2']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.json().error.message, /late\.bench\.js: the task 'late' called process\.exit\(5\), which ended the process with exit code 5 before anything was measured\./);
    assert.equal(runs(), 1);
  });

  it('a file that exits before its benchmark finishes says so (not "is tinybench installed?")', async () => {
    const file = write('early.bench.js', benchFile("bench.add('sum', () => { sink += 1; });\nif (!process.env.NEVER) process.exit(4);"));
    const run = await bench([file, '--runs', '1']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.json().error.message, /early\.bench\.js: the file called process\.exit\(4\) before a benchmark finished, which ended the process with exit code 4 before anything was measured\. Let the file end on its own after `await bench\.run\(\)`/);
  });

  it('a missing --baseline is refused before any process runs', async () => {
    const run = await bench(['sum.bench.js', '--runs', '3', '--baseline', 'never-saved']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.json().error.message, /^No benchmark baseline named 'never-saved' .* Run `hotpath bench FILE --save never-saved` first\./);
    assert.equal(runs(), 0);
  });

  it('a missing --against file is refused before any process runs', async () => {
    const run = await bench(['sum.bench.js', '--runs', '3', '--against', 'nowhere.bench.js']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.json().error.message, /^Cannot read the benchmark file .*nowhere\.bench\.js/);
    assert.equal(runs(), 0);
  });

  it('a --compare task the file does not have is refused after the first process, not after all of them', async () => {
    const run = await bench(['sum.bench.js', '--runs', '3', '--compare', 'sum,summ']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.json().error.message, /^--compare: .*sum\.bench\.js has no task named 'summ' \(its tasks: sum\)\./);
    assert.equal(runs(), 1);
  });
});
