// The `hotpath` command's start: dist/cli.js runs the CLI bundle through V8's code cache (src/cli/entry.ts).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, runCli } from '../helpers/cli';

const PROFILE = path.join(ROOT, 'test', 'fixtures', 'profiles', 'cpu-hot.cpuprofile');

describe('hotpath start: the code cache', function () {
  this.timeout(120_000);
  let root: string;
  const dir = () => path.join(root, 'code-cache');
  const files = () => (fs.existsSync(dir()) ? fs.readdirSync(dir()).sort() : []);
  const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { HOTPATH_CACHE: root, ...env } });
  beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-code-cache-')); });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('each command writes its own cache once, in a private directory, and gets the same answer from it', async () => {
    const first = await run(['report', '--json', PROFILE]);
    assert.equal(first.code, 0, first.stderr);
    const [cache] = files();
    assert.match(cache, /^cli-v\d+\.\d+\.\d+-\w+-\d+-\d+-report\.bin$/);
    assert.equal(fs.statSync(dir()).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(dir(), cache)).mode & 0o777, 0o600);
    const written = fs.statSync(path.join(dir(), cache)).mtimeMs;
    const second = await run(['report', '--json', PROFILE]);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(second.json().hotspots, first.json().hotspots);
    assert.equal(fs.statSync(path.join(dir(), cache)).mtimeMs, written, 'a cache V8 accepted is not written again');
    assert.equal((await run(['--help'])).code, 0);
    assert.deepEqual(files().map((f) => f.replace(/.*-/, '')), ['other.bin', 'report.bin']);
  });

  it('a cache V8 refuses (damaged, another build) is replaced; the command runs as without one', async () => {
    assert.equal((await run(['--help'])).code, 0);
    const [cache] = files();
    fs.writeFileSync(path.join(dir(), cache), Buffer.alloc(4096, 7));
    const runtime = cache.split('-').slice(0, 3).join('-');
    fs.writeFileSync(path.join(dir(), `${runtime}-1-1-report.bin`), 'an older build');
    fs.writeFileSync(path.join(dir(), 'cli-v0.0.0-x64-1-1-report.bin'), 'another Node\'s');
    const again = await run(['--help']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Usage:/);
    assert.notDeepEqual(fs.readFileSync(path.join(dir(), cache)), Buffer.alloc(4096, 7), 'rewritten');
    assert.deepEqual(files(), [cache, 'cli-v0.0.0-x64-1-1-report.bin'].sort(), 'the older build\'s cache is gone, another Node\'s stays');
  });

  it('HOTPATH_CODE_CACHE=off, or a directory others can write to: no cache read or written', async () => {
    assert.equal((await run(['--help'], { HOTPATH_CODE_CACHE: 'off' })).code, 0);
    assert.deepEqual(files(), []);
    fs.mkdirSync(dir(), { mode: 0o777 });
    fs.chmodSync(dir(), 0o777);
    const shared = await run(['--help']);
    assert.equal(shared.code, 0, shared.stderr);
    assert.deepEqual(files(), [], 'nothing written where another user could swap it');
  });
});
