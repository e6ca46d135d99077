// `--name` from the command line (issue 19, item 8), as users type it: a name that is a path is refused
// before anything runs — no app started, nothing written — with an error that says what to do. Before,
// `--name sub/dir` ran the whole profile and then failed with a stack trace (the profile lost), and
// `--name /../../escape` wrote the profile outside .hotpath.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, QUICK_LOAD, runCli, waitForNoProcesses } from '../helpers/cli';
import { EXIT_USAGE } from '../../src/cli/exitCodes';

describe('--name on the command line', function () {
  this.timeout(120_000);
  let root: string;
  let cwd: string;
  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-names-')));
    cwd = path.join(root, 'a', 'b');
    fs.mkdirSync(cwd, { recursive: true });
  });
  after(() => { if (root) fs.rmSync(root, { recursive: true, force: true }); });

  const files = (dir: string): string[] => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(dir, f)).isFile());

  for (const name of ['sub/dir', '/../../../escape']) {
    it(`profile --name '${name}': refused before the app starts, nothing written`, async () => {
      const tag = marker();
      const run = await runCli(['profile', ...QUICK_LOAD, '--name', name, '--', process.execPath, path.join(APPS, 'hot-server.js'), tag], { cwd });
      assert.equal(run.code, EXIT_USAGE, run.stderr);
      // The whole of stderr: no "Starting …" progress, no stack trace.
      assert.equal(run.stderr, `hotpath: --name takes a name, not a path (got '${name}'): use letters, digits, '.', '_' and '-'; --out chooses the directory profiles go to.\n`);
      assert.deepEqual(await waitForNoProcesses(tag), []);
      assert.deepEqual(files(root), [], 'nothing written, inside or outside .hotpath');
    });
  }
});
