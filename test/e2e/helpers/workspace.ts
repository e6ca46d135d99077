/**
 * The folder the end-to-end tests open: a fresh temp copy of examples/shop with one Hotpath target
 * and short load settings. The target's command carries a unique marker argument (the app ignores
 * it) so a test can ask the OS whether any process of the target survived.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { marker } from '../../helpers/cli';
import { ROOT } from './workbench';

export interface ShopWorkspace {
  dir: string;
  marker: string;
  remove(): void;
}

export function shopWorkspace(extraSettings: Record<string, unknown> = {}): ShopWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-e2e-shop-'));
  fs.cpSync(path.join(ROOT, 'examples', 'shop'), dir, { recursive: true });
  const mark = marker();
  fs.mkdirSync(path.join(dir, '.vscode'));
  fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({
    'hotpath.targets': [{ name: 'shop', command: ['node', 'server.js', mark], env: { PORT: '0' }, path: '/' }],
    'hotpath.load.durationSeconds': 3,
    'hotpath.load.warmupSeconds': 1,
    'hotpath.load.connections': 4,
    'hotpath.baseline.runs': 2,
    // Comparisons: a few short pairs, enough for the UI's path (the verdicts are tested in test/integration).
    'hotpath.compare.pairs': 3,
    'hotpath.compare.durationSeconds': 1,
    'hotpath.compare.warmupSeconds': 1,
    ...extraSettings,
  }, null, 2));
  return { dir, marker: mark, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A new user's folder: a temp copy of the store-finder app (Express 5, its only route /api/stores,
 * node_modules included) with no Hotpath target or path configured — only short load settings, so
 * the test stays quick. The marker goes on the command line the test types.
 */
export function storeFinderWorkspace(): ShopWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-e2e-stores-'));
  fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'store-finder'), dir, { recursive: true });
  fs.mkdirSync(path.join(dir, '.vscode'));
  fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({
    // Long enough for V8 to optimize the ranking and see the refreshed stores' other shape.
    'hotpath.load.durationSeconds': 4,
    'hotpath.load.warmupSeconds': 2,
    'hotpath.load.connections': 4,
  }, null, 2));
  return { dir, marker: marker(), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
