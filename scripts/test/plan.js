'use strict';
// Which test files `npm test` runs, and where (scripts/test/run.js runs the plan).
//
// Files are found by globs, never listed: a new test file joins its folder's group by itself.
//   test/unit/**, test/browser/**, test/integration/**, test/e2e/** (*.test.ts)
//   (test/vscode-host runs inside VS Code, through test/e2e/extension-host.test.ts)
//
// Lanes:
//   shared    files that assert what is found — a profile's shares, the hot line, a tier, a label in the
//             editor — not how fast: several mocha processes run them at once, three times the machine's
//             idle cores plus one, at most 7 (run.js --jobs). A fixed load window (2–4 s) finds the same hot
//             code whether the app got one core or half of one.
//   measured  files whose assertions rest on timing: a verdict, a benchmark flag against an empty
//             function. They run one at a time after the shared lane, with nothing beside them, so no
//             parallel suite can starve them. A file opts in with a line `test-lane: measured` in its
//             header comment, saying why.
//
// Real VS Code (test/e2e): the files share one code-server per mocha process (test/e2e/session.ts), so
// they run together in one process (run.js --e2e-jobs splits them over more); a file tagged
// `test-lane: own` (one that starts a code-server of its own) gets a process to itself. They are the only
// tests retried (once, on CI).
//
// `test-lane: quick` in an integration file's header puts it in `npm run test:quick`, with the unit tests.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

const GROUPS = ['unit', 'integration', 'browser', 'e2e'];

/** Every `*.test.ts` (or .js/.mjs/.cjs) under `dir`, sorted, relative to the repository. */
function testFiles(dir) {
  const out = [];
  const walk = (d) => {
    let entries;
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      if (e.name === 'node_modules' || e.name === 'fixtures' || e.name === 'out') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.test\.(ts|js|mjs|cjs)$/.test(e.name)) out.push(path.relative(ROOT, p));
    }
  };
  walk(path.join(ROOT, dir));
  return out.sort();
}

/** `test-lane: a, b` tags from a file's first 60 lines (its header comment). */
function tagsOf(file) {
  const head = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').slice(0, 60).join('\n');
  const tags = new Set();
  for (const m of head.matchAll(/test-lane:\s*([a-z][\w-]*(?:\s*,\s*[a-z][\w-]*)*)/gi)) for (const t of m[1].split(/\s*,\s*/)) tags.add(t.toLowerCase());
  return tags;
}

/**
 * The plan: [{ file, group, lane, own, quick }] for every test file, in group order.
 * @param {{ only?: string[] }} [options] only these groups (unit, integration, browser, e2e)
 */
function plan(options = {}) {
  const out = [];
  for (const group of GROUPS) {
    if (options.only && !options.only.includes(group)) continue;
    for (const file of testFiles(`test/${group}`)) {
      const tags = tagsOf(file);
      out.push({
        file, group,
        lane: tags.has('measured') && group !== 'unit' ? 'measured' : 'shared',
        own: tags.has('own'),
        quick: group === 'unit' || (group === 'integration' && tags.has('quick')),
      });
    }
  }
  return out;
}

module.exports = { plan, GROUPS, ROOT, testFiles, tagsOf };
