import * as vscode from 'vscode';
import type { Logger } from '../core/common/logger';

/** All of Hotpath's output goes to one LogOutputChannel ("Hotpath"), levels set by the user. */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Hotpath', { log: true });
}

/** The core's Logger over the channel. */
export function coreLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    trace: (m) => channel.trace(m),
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
  };
}
