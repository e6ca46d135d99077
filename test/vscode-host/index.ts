/**
 * Entry point VS Code loads in the extension host (extensionTestsPath): runs the *.test.js files
 * beside this bundle with mocha and settles when they finish (a rejection makes the host exit 1).
 * Writes a JSON record of the results to $HOTPATH_HOST_RESULTS: the driver in test/e2e reads it,
 * since the host's console output reaches it only through the browser console.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Results { passed: string[]; failed: { title: string; error: string }[]; pending: string[]; metrics: Record<string, number> }

export function run(): Promise<void> {
  // Mocha 12's main entry is ESM re-exporting this CommonJS build; require the build itself.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Mocha = require('mocha/lib/mocha.cjs') as typeof import('mocha');
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  for (const f of fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort()) mocha.addFile(path.join(__dirname, f));
  const results: Results = { passed: [], failed: [], pending: [], metrics: {} };
  (globalThis as { __hotpathHostMetrics?: Record<string, number> }).__hotpathHostMetrics = results.metrics;
  const write = () => { if (process.env.HOTPATH_HOST_RESULTS) fs.writeFileSync(process.env.HOTPATH_HOST_RESULTS, JSON.stringify(results, null, 2)); };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      write();
      if (failures) reject(new Error(`${failures} extension-host test(s) failed`));
      else resolve();
    });
    runner.on('pass', (t) => results.passed.push(t.fullTitle()));
    runner.on('pending', (t) => results.pending.push(t.fullTitle()));
    runner.on('fail', (t, err: Error) => results.failed.push({ title: t.fullTitle(), error: String(err?.stack ?? err) }));
  });
}
