/**
 * The `hotpath` command (dist/cli.js): runs the CLI bundle beside it (dist/hotpath-cli.js, built from
 * main.ts) through V8's code cache, so a command does not parse and compile the same 4 MB of JavaScript
 * again on every start. Node 22's `module.enableCompileCache()` does this for modules loaded after it;
 * the bundle is the first thing this process loads and Node 20 has no such call, hence this file.
 *
 * The cache is what V8 compiled during a run — the bundle's top level and every function the command
 * called — written at exit when there was none (or V8 refused it: another bundle, Node or V8 flags),
 * under ${HOTPATH_CACHE:-~/.cache/hotpath}/code-cache/, one file per command (each compiles different
 * code), bundle build and Node version; those of this Node for other builds are removed. V8 checks that a cache belongs to this source and this V8 before using it; code
 * read from there runs in this process, so only a private directory of this user is used.
 * HOTPATH_CODE_CACHE=off runs without it. Kept tiny and dependency-free: everything here runs on
 * every start.
 */
import * as fs from 'node:fs';
import { createRequire, wrap } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

const BUNDLE = path.join(__dirname, 'hotpath-cli.js');
const PREFIX = 'cli-';

function cacheDirectory(): string | null {
  if (process.env.HOTPATH_CODE_CACHE === 'off') return null;
  const dir = path.join(process.env.HOTPATH_CACHE || path.join(os.homedir(), '.cache', 'hotpath'), 'code-cache');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
    return st.isDirectory() && mine && (st.mode & 0o022) === 0 ? dir : null;
  } catch {
    return null;
  }
}

/**
 * Written once, atomically (another hotpath may start meanwhile); this Node's caches of other builds go
 * (those of other Node versions stay: the tests and `node22 $(which hotpath)` alternate between them).
 */
function save(dir: string, runtime: string, build: string, name: string, data: Buffer): void {
  try {
    const tmp = path.join(dir, `.${name}.${process.pid}`);
    fs.writeFileSync(tmp, data, { mode: 0o600 });
    fs.renameSync(tmp, path.join(dir, name));
    for (const f of fs.readdirSync(dir)) if (f.startsWith(runtime) && !f.startsWith(build)) fs.rmSync(path.join(dir, f), { force: true });
  } catch { /* no cache this time; the next start compiles again */ }
}

function run(): void {
  const source = fs.readFileSync(BUNDLE, 'utf8');
  const dir = cacheDirectory();
  let runtime = '';
  let build = '';
  let name = '';
  let cachedData: Buffer | undefined;
  if (dir) {
    const st = fs.statSync(BUNDLE);
    runtime = `${PREFIX}${process.version}-${process.arch}-`;
    build = `${runtime}${st.size}-${Math.round(st.mtimeMs)}-`;
    const command = /^[a-z]{1,20}$/.test(process.argv[2] ?? '') ? process.argv[2] : 'other';
    name = `${build}${command}.bin`;
    try { cachedData = fs.readFileSync(path.join(dir, name)); } catch { /* first start of this build */ }
  }
  // import() inside the bundle resolves as in any CommonJS module (Node's default loader).
  const dynamicImport = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  const script = new vm.Script(wrap(source), { filename: BUNDLE, ...(cachedData ? { cachedData } : {}), ...(dynamicImport ? { importModuleDynamically: dynamicImport } : {}) });
  if (dir && (!cachedData || script.cachedDataRejected)) {
    // At exit the cache holds what the command compiled, not only the top level.
    process.once('exit', () => save(dir, runtime, build, name, script.createCachedData()));
  }
  const module = { exports: {}, filename: BUNDLE, id: BUNDLE, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, createRequire(BUNDLE), module, BUNDLE, path.dirname(BUNDLE));
}

run();
