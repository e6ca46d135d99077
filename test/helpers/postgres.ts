/**
 * A throwaway PostgreSQL cluster for tests that run a real driver: initdb into a fresh temporary
 * directory, the server on 127.0.0.1 at a free port (its Unix socket in that directory, fsync off),
 * a database with an `items` table filled by generate_series, and a stop that leaves no process and
 * no directory behind. PostgreSQL refuses to run as root, so as root the server's tools run as the
 * `postgres` system user (Debian's package creates it) through runuser (or su). The binaries come from
 * scripts/ensure-postgres.js (npm test's pretest installs Debian's postgresql when they are missing).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, processesWith, waitForNoProcesses } from './cli';
import { freePort } from './freePort';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { findPostgresBin } = require(path.join(ROOT, 'scripts/ensure-postgres.js')) as { findPostgresBin(): string | null };

export interface PostgresCluster {
  /** 127.0.0.1 port the server listens on. */
  port: number;
  database: string;
  /** postgres://postgres@127.0.0.1:<port>/<database> (trust authentication: no password). */
  url: string;
  /** The temporary directory: data directory (`data`), Unix socket and server log. */
  dir: string;
  /** In every process title of the cluster (postmaster and its children): what `processes()` looks for. */
  clusterName: string;
  /** PIDs of live processes of this cluster. */
  processes(): number[];
  /** Stops the server (immediate shutdown; SIGKILL as a fallback), waits for its processes, removes the directory. Idempotent. */
  stop(): Promise<void>;
}

export interface PostgresOptions {
  database?: string;
  /** Rows in `items` (default 20,000). */
  rows?: number;
}

/** The SQL that creates and fills `items`: wide rows, so the driver's parsing of each value is real work. */
export function itemsSql(rows: number): string {
  return `
CREATE TABLE items (
  id integer PRIMARY KEY,
  name text NOT NULL,
  price numeric(10, 2) NOT NULL,
  created_at timestamptz NOT NULL,
  tags integer[] NOT NULL,
  attrs jsonb NOT NULL
);
INSERT INTO items
SELECT g,
       'item ' || g || ' ' || md5(g::text),
       round((g % 1000) / 7.0 + 1, 2),
       timestamptz '2024-01-01 00:00:00+00' + g * interval '37 seconds',
       ARRAY[g % 7, g % 11, g % 13, g % 17, g % 19, g % 23],
       jsonb_build_object('sku', 'SKU-' || g, 'stock', g % 50, 'warehouse', 'WH-' || (g % 9), 'dims', jsonb_build_array(g % 5, g % 7, g % 3))
FROM generate_series(1, ${Math.floor(rows)}) AS g;
ANALYZE items;
`;
}

interface Run { code: number; stdout: string; stderr: string }

function run(file: string, args: string[], options: { input?: string; timeoutMs?: number; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { timeout: options.timeoutMs ?? 60_000, cwd: options.cwd, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (err && !stderr ? err.message : '') });
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

const commandExists = (name: string) => (process.env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, name)));

/** How to run the server's tools: directly, or as root through runuser/su as the `postgres` user. */
function serverUser(): { uid: number; gid: number; wrap(file: string, args: string[]): [string, string[]] } | null {
  if (process.getuid?.() !== 0) return null;
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root, and there is no `postgres` system user to run PostgreSQL as (it refuses to run as root). Debian\'s postgresql package creates it: run `node scripts/ensure-postgres.js`.');
  const [, , uid, gid] = line.split(':');
  if (commandExists('runuser')) return { uid: Number(uid), gid: Number(gid), wrap: (file, args) => ['runuser', ['-u', 'postgres', '--', file, ...args]] };
  const quote = (s: string) => `'${s.replace(/'/g, '\'\\\'\'')}'`;
  return { uid: Number(uid), gid: Number(gid), wrap: (file, args) => ['su', ['postgres', '-s', '/bin/sh', '-c', [file, ...args].map(quote).join(' ')]] };
}

/**
 * Where the cluster's directory goes: the temporary directory, unless the `postgres` user could not
 * reach it (a root-only TMPDIR) or it is too long for the server's Unix socket path (~100 bytes).
 */
function tempBase(asOtherUser: boolean): string {
  const base = os.tmpdir();
  if (base.length > 60) return '/tmp';
  if (asOtherUser) {
    for (let d = base; ; d = path.dirname(d)) {
      try { if ((fs.statSync(d).mode & 0o001) === 0) return '/tmp'; } catch { return '/tmp'; }
      if (path.dirname(d) === d) break;
    }
  }
  return base;
}

/** The server's log, for error messages. */
function logTail(dir: string): string {
  try { return fs.readFileSync(path.join(dir, 'server.log'), 'utf8').split('\n').slice(-20).join('\n'); } catch { return '(no server log)'; }
}

/**
 * Creates, starts and fills a cluster. Fails, with what to run, when PostgreSQL is not installed:
 * a test that needs it must not silently skip.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin && process.env.HOTPATH_POSTGRES_BIN) throw new Error(`HOTPATH_POSTGRES_BIN=${process.env.HOTPATH_POSTGRES_BIN} does not hold initdb, pg_ctl, postgres and psql: point it at PostgreSQL's bin directory, or unset it and run \`node scripts/ensure-postgres.js\`.`);
  if (!bin) throw new Error('PostgreSQL is not installed (no initdb, pg_ctl, postgres and psql in /usr/lib/postgresql/*/bin or on PATH): run `node scripts/ensure-postgres.js` (npm test\'s pretest does; as root it installs Debian\'s postgresql), or set HOTPATH_POSTGRES_BIN.');
  const user = serverUser();
  const as = (tool: string, args: string[]): [string, string[]] => (user ? user.wrap(path.join(bin, tool), args) : [path.join(bin, tool), args]);
  const database = options.database ?? 'reports';
  const clusterName = `hotpath-test-pg-${randomUUID()}`;
  const dir = fs.mkdtempSync(path.join(tempBase(user !== null), 'hotpath-pg-'));
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');

  let port = 0;
  let stopped = false;
  const processes = () => processesWith(clusterName);
  // The server is a daemon: should the test process exit without calling stop (mocha interrupted, a
  // crash), kill the postmaster anyway (its children exit when it dies) and remove the directory.
  const postmasterPid = (): number => {
    try {
      const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (!Number.isInteger(pid) || pid <= 1) return 0; // never 0 or -1: those would signal a whole group
      // Only while that PID is still this cluster's postmaster (a stale file's PID may be reused).
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(clusterName) ? pid : 0;
    } catch { return 0; }
  };
  const onExit = () => {
    const pid = postmasterPid();
    if (pid) try { process.kill(pid, 'SIGKILL'); } catch { /* not running */ }
    try { fs.rmSync(dir, { recursive: true, force: true }); } catch { /* best effort */ }
  };
  process.once('exit', onExit);
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    if (fs.existsSync(path.join(data, 'postmaster.pid'))) {
      await run(...as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '20', 'stop']), { cwd: dir, timeoutMs: 30_000 });
    }
    // Fallback: the postmaster by the PID it wrote, then whatever of the cluster is left.
    const pid = postmasterPid();
    if (pid) try { process.kill(pid, 'SIGKILL'); } catch { /* stopped, or never started */ }
    let left = await waitForNoProcesses(clusterName, 5000);
    for (const pid of left) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    if (left.length) left = await waitForNoProcesses(clusterName, 5000);
    fs.rmSync(dir, { recursive: true, force: true });
    if (left.length) throw new Error(`PostgreSQL processes of ${clusterName} survived SIGKILL: ${left.join(', ')}`);
  };

  try {
    const init = await run(...as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']), { cwd: dir, timeoutMs: 120_000 });
    if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}):\n${init.stderr}${init.stdout}`);
    // A port can be taken between freePort and the server's bind: try a few.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const settings = [
        `-c listen_addresses=127.0.0.1`, `-c port=${port}`, `-c unix_socket_directories=${dir}`, `-c fsync=off`,
        `-c synchronous_commit=off`, `-c full_page_writes=off`, `-c cluster_name=${clusterName}`,
      ].join(' ');
      const start = await run(...as('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '30', '-o', settings, 'start']), { cwd: dir, timeoutMs: 60_000 });
      if (start.code === 0) break;
      const why = logTail(dir);
      if (attempt < 3 && /could not bind|Address already in use/i.test(why)) continue;
      throw new Error(`pg_ctl start failed (exit ${start.code}):\n${start.stderr}${start.stdout}\nserver log:\n${why}`);
    }
    const psql = (db: string, sql: string) => run(path.join(bin, 'psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', db, '-f', '-'], { input: sql, timeoutMs: 120_000 });
    // pg_ctl -w waited for the server; a TCP connection must work too before the test relies on it.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ping = await psql('postgres', 'SELECT 1;');
      if (ping.code === 0) break;
      if (Date.now() > deadline) throw new Error(`PostgreSQL on 127.0.0.1:${port} accepts no connection:\n${ping.stderr}\nserver log:\n${logTail(dir)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const created = await psql('postgres', `CREATE DATABASE ${database};`);
    if (created.code !== 0) throw new Error(`CREATE DATABASE ${database} failed:\n${created.stderr}`);
    const filled = await psql(database, itemsSql(options.rows ?? 20_000));
    if (filled.code !== 0) throw new Error(`filling ${database}.items failed:\n${filled.stderr}`);
  } catch (err) {
    await stop().catch(() => { /* the first error is the one to report */ });
    throw err;
  }
  return { port, database, url: `postgres://postgres@127.0.0.1:${port}/${database}`, dir, clusterName, processes, stop };
}
