/**
 * Where a function's code comes from, judged from its callFrame alone: user code, a dependency (and
 * which npm package), Node's internals, V8 natives, or one of V8's pseudo-frames.
 */
import { fileURLToPath } from 'node:url';
import type { Category } from './types';

const IS_WINDOWS = process.platform === 'win32';

const SPECIAL: Record<string, Category> = {
  '(root)': 'root',
  '(program)': 'program',
  '(idle)': 'idle',
  '(garbage collector)': 'gc',
};

export interface Classification {
  category: Category;
  package: string | null;
  /** Absolute path for file:// urls and paths; the url otherwise. */
  file: string;
}

export function classify(functionName: string, url: string): Classification {
  if (url === '') {
    const special = SPECIAL[functionName];
    return { category: special ?? 'native', package: null, file: '' };
  }
  if (url.startsWith('node:') || isNodeInternalPath(url)) return { category: 'node', package: null, file: url };

  const file = urlToFile(url);
  if (file.replace(/\\/g, '/').includes('/node_modules/')) return { category: 'dependency', package: packageName(file), file };
  if (isAbsolutePath(file) || /^[a-z][a-z0-9+.-]*:/i.test(url)) return { category: 'user', package: null, file };
  // Anything else without a scheme or absolute path (e.g. "evalmachine.<anonymous>", a vm script's
  // name) runs code we cannot open; V8 gives natives such names too (e.g. "native array.js").
  return { category: /^native /.test(url) ? 'native' : 'user', package: null, file };
}

/** file:// urls become paths (decoded, OS-specific); anything else stays as it is. */
export function urlToFile(url: string): string {
  if (!url.startsWith('file:')) return url;
  // The common case, without building a URL object per function: file:///plain/path on POSIX.
  if (!IS_WINDOWS && url.startsWith('file:///') && !/[%?#]/.test(url)) return url.slice(7);
  try {
    return fileURLToPath(url);
  } catch {
    return url; // e.g. a file URL with a host on POSIX
  }
}

/**
 * The npm package of a path under node_modules: the innermost `node_modules/<name>` or
 * `node_modules/@scope/<name>` (nested installs and pnpm's `.pnpm/x@1/node_modules/x` both end there).
 */
export function packageName(file: string): string | null {
  const normalized = file.replace(/\\/g, '/');
  const marker = '/node_modules/';
  const at = normalized.lastIndexOf(marker);
  if (at < 0) return null;
  const rest = normalized.slice(at + marker.length).split('/');
  if (rest[0] === '' || rest[0] === undefined) return null;
  if (rest[0].startsWith('@')) return rest.length > 1 && rest[1] !== '' ? `${rest[0]}/${rest[1]}` : null;
  // Tool directories (.pnpm, .vite/deps, .bin) are not packages.
  return rest[0].startsWith('.') ? null : rest[0];
}

function isAbsolutePath(file: string): boolean {
  return file.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(file) || file.startsWith('\\\\');
}

/** Node before 16 named its internals by bare relative paths: "internal/...", "events.js", "_http_server.js". */
function isNodeInternalPath(url: string): boolean {
  if (url.startsWith('internal/')) return true;
  return /^_?[a-z_]+(\/[a-z_]+)*\.js$/.test(url);
}
