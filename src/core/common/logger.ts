/** The core logs through this; the CLI writes to stderr when verbose, VS Code to a LogOutputChannel. */
export interface Logger {
  trace(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const silentLogger: Logger = { trace() {}, info() {}, warn() {}, error() {} };
