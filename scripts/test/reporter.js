'use strict';
// Mocha reporter for `npm test` (scripts/test/run.js): mocha's spec output, unchanged, plus a JSON record
// of the run in $HOTPATH_TEST_RESULTS — each test's file, title, outcome, duration and retries (with the
// first failure's error, kept even when the retry passes), and each test file's wall time, hooks
// included (a suite's `before` that starts code-server is part of what the file costs).
//
// A retry is printed where it happens (`↻ retry 1 of …`), so a flake is visible in the log, not hidden.
// Only the real-VS-Code lane runs with retries (run.js passes --retries there, on CI only).
const fs = require('node:fs');
const path = require('node:path');
const { reporters, Runner } = require('mocha');

const C = Runner.constants;
const ROOT = path.resolve(__dirname, '..', '..');
const rel = (file) => (file ? path.relative(ROOT, file) : '(unknown file)');

/** The file a runnable belongs to (hooks and tests carry it; nested suites inherit their parent's). */
function fileOf(runnable) {
  for (let r = runnable; r; r = r.parent) if (r.file) return r.file;
  return undefined;
}

/** The test's titles below the file's root, joined as mocha's fullTitle() does. */
function titleOf(runnable) {
  return runnable.fullTitle();
}

function errorText(err) {
  if (!err) return '';
  const text = err.stack && err.message && err.stack.includes(err.message) ? err.stack : `${err.message ?? err}\n${err.stack ?? ''}`;
  return String(text).slice(0, 4000);
}

class HotpathReporter extends reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = Date.now();
    const tests = [];
    const files = new Map(); // file → { file, wallMs, began }
    const retried = new Map(); // fullTitle + file → [{ attempt, error }]

    const fileEntry = (file) => {
      const key = rel(file);
      if (!files.has(key)) files.set(key, { file: key, wallMs: 0, began: null, depth: 0 });
      return files.get(key);
    };

    runner.on(C.EVENT_SUITE_BEGIN, (suite) => {
      if (suite.root) return;
      const f = fileEntry(fileOf(suite));
      if (f.depth++ === 0) f.began = Date.now();
    });
    runner.on(C.EVENT_SUITE_END, (suite) => {
      if (suite.root) return;
      const f = fileEntry(fileOf(suite));
      if (--f.depth === 0 && f.began !== null) { f.wallMs += Date.now() - f.began; f.began = null; }
    });

    runner.on(C.EVENT_TEST_RETRY, (test, err) => {
      const key = `${rel(fileOf(test))}\u0000${titleOf(test)}`;
      const list = retried.get(key) ?? [];
      list.push({ attempt: test.currentRetry() + 1, durationMs: test.duration ?? null, error: errorText(err) });
      retried.set(key, list);
      const first = String(err && err.message ? err.message : err).split('\n')[0].slice(0, 300);
      reporters.Base.consoleLog(`      ↻ retry ${test.currentRetry() + 1} of "${test.title}" after: ${first}`);
    });

    const record = (test, state, err) => {
      const file = rel(fileOf(test));
      const title = titleOf(test);
      tests.push({
        file,
        title,
        state,
        durationMs: test.duration ?? null,
        retries: test.currentRetry ? test.currentRetry() : 0,
        earlierFailures: retried.get(`${file}\u0000${title}`) ?? [],
        error: state === 'failed' ? errorText(err) : undefined,
        hook: test.type === 'hook' ? true : undefined,
      });
    };
    runner.on(C.EVENT_TEST_PASS, (test) => record(test, 'passed'));
    runner.on(C.EVENT_TEST_FAIL, (test, err) => record(test, 'failed', err));
    runner.on(C.EVENT_TEST_PENDING, (test) => record(test, 'pending'));

    runner.once(C.EVENT_RUN_END, () => {
      const out = process.env.HOTPATH_TEST_RESULTS;
      if (!out) return;
      const doc = {
        startedAt: new Date(started).toISOString(),
        wallMs: Date.now() - started,
        files: [...files.values()].map(({ file, wallMs }) => ({ file, wallMs })),
        tests,
      };
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, JSON.stringify(doc, null, 1));
    });
  }
}

module.exports = HotpathReporter;
