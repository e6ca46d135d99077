import * as vscode from 'vscode';
import type { Logger } from '../core/common/logger';
import { safeLog } from './safeLog';

/**
 * All of Hotpath's output goes to one LogOutputChannel ("Hotpath"), levels set by the user; every
 * record is one line (safeLog), whatever profile or app text it carries.
 */
export function createLog(): vscode.LogOutputChannel {
  return safeLog(vscode.window.createOutputChannel('Hotpath', { log: true }));
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
