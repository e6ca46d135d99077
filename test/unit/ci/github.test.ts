import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendOutputs, appendSummary, fitSummary, githubEnvironment, SUMMARY_LIMIT_BYTES } from '../../../src/core/ci/github';

describe('GitHub Actions environment (src/core/ci/github.ts)', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-gh-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is detected by GITHUB_ACTIONS=true only', () => {
    assert.equal(githubEnvironment({ GITHUB_STEP_SUMMARY: '/x' }), undefined);
    assert.equal(githubEnvironment({ GITHUB_ACTIONS: 'false', GITHUB_STEP_SUMMARY: '/x' }), undefined);
    assert.deepEqual(githubEnvironment({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/s', GITHUB_OUTPUT: '/o', GITHUB_WORKSPACE: '/w' }), { summaryPath: '/s', outputPath: '/o', workspace: '/w' });
  });

  it('the summary is appended within the step\'s 1 MiB: shorter first, then cut at a line with a note (and a closed fence)', () => {
    const file = path.join(dir, 'summary.md');
    fs.writeFileSync(file, `${'x'.repeat(SUMMARY_LIMIT_BYTES - 5000)}\n`);
    const long = ['# title', '```text', ...Array.from({ length: 2000 }, (_, i) => `line ${i}`)].join('\n');
    appendSummary(file, { full: long, short: () => long, whole: 'the whole report is in report.md' });
    const size = fs.statSync(file).size;
    assert.ok(size <= SUMMARY_LIMIT_BYTES, `${size} bytes`);
    const tail = fs.readFileSync(file, 'utf8').slice(-200);
    assert.match(tail, /```\n\n_\(Cut to fit GitHub's 1 MiB job-summary limit; the whole report is in report\.md\.\)_\n$/);
    // A shorter rendering that fits is used as it is.
    assert.equal(fitSummary('a'.repeat(100), 50, () => 'short', 'w'), 'short');
    assert.equal(fitSummary('fits', 50, () => 'short', 'w'), 'fits');
  });

  it('outputs are appended as entries the runner reads back one by one', () => {
    const file = path.join(dir, 'output');
    fs.writeFileSync(file, 'earlier=1\n');
    appendOutputs(file, [['verdict', 'slower'], ['requestsPerSecond-ratio', '0.3']]);
    assert.equal(fs.readFileSync(file, 'utf8'), 'earlier=1\nverdict=slower\nrequestsPerSecond-ratio=0.3\n');
  });
});
