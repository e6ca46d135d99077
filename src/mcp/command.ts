/** `hotpath mcp [--cwd DIR] [--verbose]`: the MCP server on stdio; `--help` prints the set-up snippets. */
import * as path from 'node:path';
import { format } from 'node:util';
import { runEmergencyStops } from '../core/common/emergency';
import type { Logger } from '../core/common/logger';
import { logText } from '../shared/text/safe';
import { serveMcp } from './server';

const VERSION = '0.1.0';

/** The set-up, two lines per client, with this installation's own path. */
export function mcpHelp(cli: string): string {
  const entry = JSON.stringify({ command: 'node', args: [cli, 'mcp'] });
  return `Usage: hotpath mcp [--cwd DIR] [--verbose]

Hotpath's tools for agents over MCP (stdio): hotpath_profile, hotpath_status, hotpath_hot_lines,
hotpath_explain, hotpath_baseline, hotpath_verify, hotpath_compare, hotpath_leak, hotpath_startup,
hotpath_bench, hotpath_report. stdout carries JSON-RPC only; logs go to stderr (--verbose for more).
Commands run inside the client's roots, else in --cwd (default: the directory the client starts it in).

VS Code: nothing to do — the Hotpath extension offers the server (and the same tools as language-model tools).

Claude Code — .mcp.json in the project (or: claude mcp add hotpath -- node ${cli} mcp):
  {"mcpServers": {"hotpath": ${entry}}}

Cursor — .cursor/mcp.json in the project, or ~/.cursor/mcp.json:
  {"mcpServers": {"hotpath": ${entry}}}

Any stdio client: run \`node ${cli} mcp\` in the project folder.
`;
}

export async function mcpCommand(argv: string[]): Promise<number> {
  const cli = path.resolve(process.argv[1] ?? 'dist/cli.js');
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(mcpHelp(cli));
    return 0;
  }
  let cwd = process.cwd();
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--cwd' && argv[i + 1]) cwd = path.resolve(argv[++i]);
    else if (argv[i] === '--verbose') verbose = true;
    else {
      process.stderr.write(`hotpath mcp: unknown option '${logText(argv[i])}'. Options: --cwd DIR, --verbose, --help.\n`);
      return 2;
    }
  }
  // stdout is the protocol's: anything that would print there (a library's console.log) goes to stderr.
  for (const m of ['log', 'info', 'debug'] as const) console[m] = (...a: unknown[]) => { process.stderr.write(`${format(...a)}\n`); };
  const write = (level: string, always: boolean) => (m: string) => { if (always || verbose) process.stderr.write(`[hotpath mcp ${level}] ${logText(m)}\n`); };
  const logger: Logger = { trace: write('trace', false), info: write('info', false), warn: write('warn', true), error: write('error', true) };

  return new Promise<number>((resolve) => {
    let stopping = false;
    const server = serveMcp({ version: VERSION, cwd, logger, onClosed: () => resolve(0) });
    const stop = (signal: string) => {
      if (stopping) {
        // A second signal: no more waiting for a graceful stop.
        void runEmergencyStops(1000).finally(() => resolve(130));
        return;
      }
      stopping = true;
      logger.info(`${signal}: stopping every run`);
      void server.close().finally(() => resolve(0));
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGHUP', () => stop('SIGHUP'));
    // The client went away without closing the protocol (stdin ended): every run's app is stopped.
    process.stdin.on('end', () => stop('stdin closed'));
    logger.info(`serving on stdio (cwd ${cwd})`);
  });
}
