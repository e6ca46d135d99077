/**
 * The Hotpath output channel with every record made safe: messages carry profile and app text (names,
 * paths, the app's output), and a line break in them would forge a record of its own. No runtime
 * `vscode` import, so the wrapper is unit-tested in plain Node.
 */
import type * as vscode from 'vscode';
import { logText } from '../shared/text';

const RECORDS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

function safe(message: unknown): unknown {
  if (typeof message === 'string') return logText(message);
  if (message instanceof Error) return logText(message.stack ?? message.message);
  return message;
}

/** The same channel; each record (and `append*`) goes through `logText`, other members pass through. */
export function safeLog<T extends Partial<vscode.LogOutputChannel>>(channel: T): T {
  return new Proxy(channel, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      if (!RECORDS.has(prop)) return value.bind(target);
      return (message: unknown, ...args: unknown[]) => (value as (...a: unknown[]) => unknown).call(target, safe(message), ...args.map(safe));
    },
  });
}
