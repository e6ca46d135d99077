/**
 * Commands load only what they use (issue 24): `hotpath --help` and `hotpath report` must not run the
 * load generator, the inspector client, the pprof encoder or the t-distribution's packages. The CLI
 * requires those lazily, so what matters is the graph of static imports from the modules every run or
 * every report executes — read from esbuild's metafile of the CLI bundle, as the build makes it.
 * (bench/suites/cli.js checks the same from V8's coverage of real runs; this is its quick, exact guard:
 * `hotpath report` ran autocannon once because the HTML report imported a helper from compare.ts.)
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(__dirname, '../../..');

/** Static import graph of the CLI bundle: file → files it imports with `import` (not `require`). */
async function staticGraph(): Promise<Map<string, string[]>> {
  const r = await build({ entryPoints: [path.join(ROOT, 'src/cli/main.ts')], absWorkingDir: ROOT, bundle: true, platform: 'node', write: false, metafile: true, outfile: path.join(ROOT, 'out.js'), logLevel: 'silent', external: ['vscode'] });
  const graph = new Map<string, string[]>();
  for (const [file, input] of Object.entries(r.metafile!.inputs)) graph.set(file, input.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path));
  return graph;
}

/** The chain of static imports from `start` to the first file matching `target`, or null. */
function chainTo(graph: Map<string, string[]>, start: string, target: RegExp): string[] | null {
  const prev = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const f = queue.shift()!;
    if (target.test(f)) {
      const chain: string[] = [];
      for (let x: string | null = f; x !== null; x = prev.get(x) ?? null) chain.unshift(x);
      return chain;
    }
    for (const next of graph.get(f) ?? []) if (!prev.has(next)) { prev.set(next, f); queue.push(next); }
  }
  return null;
}

/** Packages only the commands that load an app (or write pprof) run. */
const LOAD_ONLY = /node_modules\/(autocannon|chrome-remote-interface|ws|hdr-histogram-js|pako|pidtree|cli-progress|semver|pprof-format)\//;
/** The t-distribution (130 @stdlib packages): verdicts need it, `--help` must not load it. */
const STATISTICS = /node_modules\/@stdlib\/stats-base-dists-t-(quantile|cdf)\//;

describe('the CLI loads only what a command uses', function () {
  this.timeout(60_000);
  let graph: Map<string, string[]>;
  before(async () => { graph = await staticGraph(); });

  // What every command runs (main.ts and what it imports), and what `report` adds (its workflow, the
  // report model, the HTML report it writes beside the profile, the JSON and terminal output).
  for (const start of ['src/cli/main.ts', 'src/core/workflow/report.ts', 'src/cli/htmlReport.ts', 'src/core/report/index.ts', 'src/cli/jsonOutput.ts', 'src/cli/humanOutput.ts', 'src/cli/pprofJson.ts']) {
    it(`${start} imports no load-time-only package`, () => {
      assert.ok(graph.has(start), `${start} is in the bundle`);
      assert.equal(chainTo(graph, start, LOAD_ONLY)?.join(' → ') ?? null, null);
    });
  }

  it('src/cli/main.ts (every command, `--help` too) imports no statistics package', () => {
    assert.equal(chainTo(graph, 'src/cli/main.ts', STATISTICS)?.join(' → ') ?? null, null);
  });

  it('the check can fail: the profile workflow does reach the load generator', () => {
    const chain = chainTo(graph, 'src/core/workflow/profileWithLoad.ts', LOAD_ONLY);
    assert.ok(chain && chain.length > 1, 'profileWithLoad.ts reaches autocannon');
  });
});
