/**
 * The compare pickers' rows as pure functions of what was found (no vscode import; unit-tested in plain
 * Node). Commit subjects and author names are repository text: label-safe, and `$(` broken so they
 * cannot render as icons.
 */
import type { CommitInfo } from '../../core/variants/git';
import type { NodeRuntime, RuntimeSource } from '../../core/runtimes/types';
import { labelText } from '../../shared/text/safe';

export interface PickRow { label: string; description?: string; detail?: string; value?: string; alwaysShow?: boolean }

const plain = (text: string) => labelText(text).replace(/\$\(/g, '$\u200b(');

/** "3 days ago" from an ISO date. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  const [n, unit] = s < 3600 ? [Math.round(s / 60), 'minute'] : s < 86400 ? [Math.round(s / 3600), 'hour'] : [Math.round(s / 86400), 'day'];
  return Number.isFinite(n) ? `${n} ${unit}${n === 1 ? '' : 's'} ago` : '';
}

/** HEAD first (the usual question: "did my uncommitted change help?"), then older commits, then free entry. */
export function revisionRows(commits: readonly CommitInfo[], dirty: boolean, now = Date.now()): PickRow[] {
  const rows: PickRow[] = commits.map((c, i) => ({
    label: `$(git-commit) ${c.sha.slice(0, 7)} ${plain(c.subject)}`,
    description: `${i === 0 ? 'HEAD · ' : ''}${plain(c.author)} · ${ago(c.date, now)}`,
    detail: i === 0 ? (dirty ? 'Your uncommitted changes (B) against the last commit (A)' : 'The working tree is this commit: pick an older one') : undefined,
    value: c.sha,
  }));
  rows.push({ label: '$(edit) Enter a branch, tag or revision…', alwaysShow: true });
  return rows;
}

const SOURCE: Record<RuntimeSource, string> = {
  path: 'on PATH', current: "Hotpath's own Node", nvm: 'nvm', fnm: 'fnm', volta: 'Volta', asdf: 'asdf / mise', n: 'n', nodenv: 'nodenv',
  'hotpath-cache': "Hotpath's cache", installed: "Hotpath's cache", given: 'given',
};

/** One row per installed version (newest first), then installing one from the npm registry. */
export function runtimeRows(runtimes: readonly NodeRuntime[], exclude?: string): PickRow[] {
  return [
    ...runtimes.filter((r) => r.path !== exclude).map((r) => ({ label: `Node ${r.version}`, description: SOURCE[r.source], detail: r.path, value: r.path })),
    { label: '$(cloud-download) Another version, installed from the npm registry…', description: 'official binaries (node-<platform>-<arch>), cached', alwaysShow: true },
  ];
}
