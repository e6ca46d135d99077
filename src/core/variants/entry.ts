/**
 * The file a command starts — `node server.js`, `node -r dotenv/config dist/main.js`, `npm start` whose
 * script is `node server.js`, `npx tsx src/app.ts` — as a real path, so each side of a comparison can
 * show which file it ran (and a revision's side can be checked to run its own). A guess from the command
 * line, never a requirement: null when no argument names a file (`node -e …`, a script with pipes).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `node`, `node.exe`, or the path of a node binary (a side's runtime, Hotpath's own node). */
export const isNodeCommand = (word: string) => /^node(\.exe)?$/i.test(path.basename(word)) || word === process.execPath;

/** Node options whose value is the next word (`-r dotenv/config`); the rest take `--flag=value` or none. */
const NODE_VALUE_OPTIONS = new Set([
  '-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--env-file', '--env-file-if-exists',
  '--title', '--input-type', '--inspect-port', '--debug-port', '--redirect-warnings', '--cpu-prof-dir', '--cpu-prof-name',
  '--heap-prof-dir', '--heap-prof-name', '--diagnostic-dir', '--report-dir', '--report-directory', '--watch-path',
  '--experimental-config-file', '--openssl-config', '--icu-data-dir', '--disable-warning',
]);
/** Node options after which there is no entry file (code on the command line, the test runner's many files). */
const NODE_NO_ENTRY = new Set(['-e', '--eval', '-p', '--print', '-', '--test', '--run', '-i', '--interactive']);
const PACKAGE_MANAGERS = /^(npm|pnpm|yarn|bun)(\.cmd)?$/i;
/** The package managers' own commands that are not the name of a package.json script. */
const PM_COMMANDS = new Set(['run', 'run-script', 'exec', 'x', 'dlx', 'npx']);

function statFile(file: string): boolean {
  try { return fs.statSync(file).isFile(); } catch { return false; }
}

/** The file `word` names from `cwd` the way node finds a main module: as written, with .js/.mjs/.cjs, or a folder's index/main. */
export function existingFile(cwd: string, word: string | undefined): string | null {
  if (!word) return null;
  const abs = path.resolve(cwd, word);
  const candidates = [abs, `${abs}.js`, `${abs}.mjs`, `${abs}.cjs`];
  try {
    const main = JSON.parse(fs.readFileSync(path.join(abs, 'package.json'), 'utf8')).main;
    if (typeof main === 'string') candidates.push(path.resolve(abs, main), path.resolve(abs, `${main}.js`));
  } catch { /* not a package folder */ }
  candidates.push(path.join(abs, 'index.js'));
  const found = candidates.find(statFile);
  return found ? fs.realpathSync(found) : null;
}

function nodeEntry(args: string[], cwd: string): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return existingFile(cwd, args[i + 1]);
    if (NODE_NO_ENTRY.has(a) || /^--(eval|print)=/.test(a)) return null;
    if (a.startsWith('-')) { if (NODE_VALUE_OPTIONS.has(a)) i++; continue; }
    return existingFile(cwd, a);
  }
  return null;
}

/** Words of a package.json script, split as a shell would for a simple command (quotes removed). */
function scriptWords(script: string): string[] | null {
  // `npm run build && node dist/server.js`: the last command is the one that stays running.
  const last = script.split(/&&|;/).pop()!.trim();
  if (/[|<>`$]/.test(last)) return null;
  return (last.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^(["'])(.*)\1$/, '$2'));
}

function packageScriptEntry(args: string[], cwd: string, depth: number): string | null {
  const words = args.filter((a) => !a.startsWith('-'));
  const name = PM_COMMANDS.has(words[0]) ? words[1] : words[0];
  if (!name) return null;
  let scripts: Record<string, unknown> = {};
  try { scripts = JSON.parse(fs.readFileSync(path.join(cwd, 'package.json'), 'utf8')).scripts ?? {}; } catch { /* no package.json */ }
  const script = scripts[name];
  if (typeof script !== 'string') return existingFile(cwd, name); // `bun server.ts`, `yarn node x.js`
  const inner = scriptWords(script);
  // A script's words are found on node_modules/.bin first, as npm runs them.
  return inner && depth < 3 ? entryFile(inner, cwd, depth + 1) : null;
}

/** The real path of the file `command` starts in `cwd`, or null when the command line does not say. */
export function entryFile(command: string[], cwd: string, depth = 0): string | null {
  const [first, ...rest] = command;
  if (!first) return null;
  if (isNodeCommand(first)) return nodeEntry(rest, cwd);
  if (PACKAGE_MANAGERS.test(path.basename(first))) return packageScriptEntry(rest, cwd, depth);
  // `./server.js`, `bin/app`: the command is a file itself.
  if (/[\\/]/.test(first)) { const own = existingFile(cwd, first); if (own) return own; }
  // `npx tsx server.ts`, `ts-node src/app.ts`, `cross-env NODE_ENV=production node server.js`.
  if (/^(npx|cross-env|env)$/.test(path.basename(first))) {
    const next = rest.findIndex((w) => !w.startsWith('-') && !/^\w+=/.test(w));
    if (next !== -1) return entryFile(rest.slice(next), cwd, depth + 1);
  }
  for (const w of rest) {
    if (w.startsWith('-')) continue;
    const file = existingFile(cwd, w);
    if (file) return file;
  }
  return null;
}
