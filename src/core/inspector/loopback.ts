import { ErrorCode, HotpathError } from '../common/errors';

/** Hotpath only ever talks to inspectors on this machine's loopback interface. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export function assertLoopbackInspectorUrl(url: string): URL {
  let parsed: URL;
  try { parsed = new URL(url); } catch {
    throw new HotpathError(ErrorCode.InvalidOption, `'${url}' is not an inspector URL. Expected ws://127.0.0.1:<port>/<id> as printed by "Debugger listening on …".`);
  }
  if (parsed.protocol !== 'ws:' || !isLoopbackHost(parsed.hostname)) {
    throw new HotpathError(ErrorCode.InvalidOption, `Refusing to connect to the inspector at ${url}: Hotpath attaches only to inspectors on loopback (ws://127.0.0.1:…), because an inspector gives full control of the process.`);
  }
  return parsed;
}
