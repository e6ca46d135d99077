import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HotpathSession } from '../session';
import { rps } from '../status/render';
import { listBaselines, listProfiles, type ProfileEntry } from './history';
import type { BaselineSummary } from '../../core/stats/baselineStore';
import type { ThreadHotspot, ThreadPackage } from '../../core/workflow/analyze';
import { ownDetail, ownMatters } from '../../core/attribution/rank';
import type { PreflightCheck } from '../../core/workflow/preflight';
import { formatBytes, formatMs, formatPct, labelText } from '../../shared/text';

type Node =
  | { kind: 'section'; id: 'checks' | 'hotspots' | 'packages' | 'baselines' | 'profiles' }
  | { kind: 'check'; check: PreflightCheck }
  | { kind: 'hotspot'; hotspot: ThreadHotspot }
  | { kind: 'package'; pkg: ThreadPackage }
  | { kind: 'baseline'; folder: string; baseline: BaselineSummary }
  | { kind: 'profile'; folder: string; profile: ProfileEntry }
  | { kind: 'empty'; text: string };

const SECTION_LABEL = { checks: 'Production parity', hotspots: 'Hotspots', packages: 'Dependencies', baselines: 'Baselines', profiles: 'Profiles' } as const;

/** The activity-bar view: hotspots of the last profile, baselines, and the profile history. */
export class HotspotsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly session: HotpathSession) {
    this.disposables.push(session.onDidChangeProfile(() => this.refresh()), session.onDidChangeHistory(() => this.refresh()), this.changed);
  }

  refresh(): void { this.changed.fire(undefined); }

  getChildren(node?: Node): Promise<Node[]> | Node[] {
    if (!node) {
      const ids = [...(this.session.checks ? ['checks' as const] : []), 'hotspots' as const, ...(this.session.profile?.packages.length ? ['packages' as const] : []), 'baselines' as const, 'profiles' as const];
      return ids.map((id) => ({ kind: 'section', id }));
    }
    if (node.kind !== 'section') return [];
    const folders = vscode.workspace.workspaceFolders ?? [];
    switch (node.id) {
      case 'checks':
        return (this.session.checks?.list ?? []).map((check) => ({ kind: 'check', check }));
      case 'hotspots': {
        const hs = this.session.profile?.hotspots ?? [];
        return hs.length ? hs.slice(0, 30).map((hotspot) => ({ kind: 'hotspot', hotspot })) : [{ kind: 'empty', text: 'Run "Profile with Load" or open a .cpuprofile' }];
      }
      case 'packages':
        return (this.session.profile?.packages ?? []).slice(0, 20).map((pkg) => ({ kind: 'package', pkg }));
      case 'baselines':
        return Promise.all(folders.map(async (f) => (await listBaselines(f.uri.fsPath)).map((baseline): Node => ({ kind: 'baseline', folder: f.uri.fsPath, baseline }))))
          .then((all) => all.flat()).then((list) => (list.length ? list : [{ kind: 'empty', text: 'No baseline yet' }]));
      case 'profiles':
        return Promise.all(folders.map(async (f) => (await listProfiles(f.uri.fsPath)).map((profile): Node => ({ kind: 'profile', folder: f.uri.fsPath, profile }))))
          .then((all) => all.flat().sort((a, b) => (b as { profile: ProfileEntry }).profile.mtimeMs - (a as { profile: ProfileEntry }).profile.mtimeMs))
          .then((list) => (list.length ? list : [{ kind: 'empty', text: 'No saved profile yet' }]));
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'section': {
        const item = new vscode.TreeItem(SECTION_LABEL[node.id], vscode.TreeItemCollapsibleState.Expanded);
        item.id = `section:${node.id}`;
        if (node.id === 'checks' && this.session.checks) {
          const warn = this.session.checks.list.filter((c) => c.status === 'warn').length;
          item.description = labelText(`${this.session.checks.phase === 'before' ? 'before' : 'after'} ${this.session.checks.title}${warn ? ` · ${warn} to fix` : ' · all good'}`);
        }
        return item;
      }
      case 'check': {
        const c = node.check;
        const item = new vscode.TreeItem(labelText(c.title), vscode.TreeItemCollapsibleState.None);
        item.description = labelText(c.observed);
        item.tooltip = new vscode.MarkdownString().appendText(`${c.title}\n\nSaw: ${c.observed}${c.advice ? `\n\nWhat to do: ${c.advice}` : ''}`);
        item.iconPath = new vscode.ThemeIcon(c.status === 'pass' ? 'pass' : c.status === 'warn' ? 'warning' : 'info',
          new vscode.ThemeColor(c.status === 'pass' ? 'testing.iconPassed' : c.status === 'warn' ? 'problemsWarningIcon.foreground' : 'problemsInfoIcon.foreground'));
        item.contextValue = 'hotpath.check';
        return item;
      }
      case 'empty': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.contextValue = 'hotpath.empty';
        return item;
      }
      case 'hotspot': {
        const h = node.hotspot;
        const item = new vscode.TreeItem(labelText(h.function), vscode.TreeItemCollapsibleState.None);
        const where = h.file ? `${path.basename(h.file)}${h.line ? `:${h.line}` : ''}` : h.category;
        const share = h.category === 'user' && ownMatters(h) ? `${formatPct(h.ownPct)} own · ${formatPct(h.selfPct)} self` : `${formatPct(h.selfPct)} self`;
        item.description = labelText(`${share} · ${where}${h.package ? ` · ${h.package}` : ''}${h.thread !== 'main' ? ` · ${h.thread}` : ''}`);
        const detail = ownDetail(h, formatPct);
        const context = h.userCaller
          ? `called from ${h.userCaller.function} ${h.userCaller.file}${h.userCaller.line ? `:${h.userCaller.line}` : ''}`
          : h.asyncContext ?? '';
        // A plain-text tooltip: each line of profile text on its own line, none able to add a line.
        item.tooltip = [
          h.function, `${h.file}${h.line ? `:${h.line}` : ''}`,
          `own ${formatMs(h.ownMs)} (${formatPct(h.ownPct)})${detail ? ` — ${detail}` : ''}`,
          `self ${formatMs(h.selfMs)} (${formatPct(h.selfPct)}), total ${formatMs(h.totalMs)} (${formatPct(h.totalPct)})`,
          `${h.category}${h.package ? ` (${h.package})` : ''}`, ...(context ? [context] : []),
        ].map(labelText).join('\n');
        item.iconPath = new vscode.ThemeIcon(h.category === 'user' ? 'flame' : h.category === 'dependency' ? 'package' : 'symbol-method');
        // Non-user code opens where the user's code calls it: that is the line to change.
        const target = h.category !== 'user' && h.userCaller?.line && path.isAbsolute(h.userCaller.file) ? { file: h.userCaller.file, line: h.userCaller.line } : h.line && path.isAbsolute(h.file) ? { file: h.file, line: h.line } : undefined;
        if (target) {
          item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(target.file), { selection: new vscode.Range(target.line - 1, 0, target.line - 1, 0) }] };
        }
        item.contextValue = 'hotpath.hotspot';
        return item;
      }
      case 'package': {
        const p = node.pkg;
        const item = new vscode.TreeItem(labelText(p.package), vscode.TreeItemCollapsibleState.None);
        item.description = `${formatPct(p.totalPct)} total · ${formatPct(p.selfPct)} self`;
        item.tooltip = labelText(`${p.package}: ${formatMs(p.totalMs)} (${formatPct(p.totalPct)}) with the package on the stack, ${formatMs(p.selfMs)} (${formatPct(p.selfPct)}) in its own code`);
        item.iconPath = new vscode.ThemeIcon('package');
        item.contextValue = 'hotpath.package';
        return item;
      }
      case 'baseline': {
        const b = node.baseline;
        const item = new vscode.TreeItem(labelText(b.name), vscode.TreeItemCollapsibleState.None);
        item.description = labelText(b.problem ? `unusable: ${b.problem}` : `${String(b.createdAt).slice(0, 16).replace('T', ' ')} · ${b.requestsPerSecond === null ? '?' : rps(b.requestsPerSecond)} req/s${b.nodeVersion ? ` · Node ${b.nodeVersion}` : ''}`);
        item.tooltip = [b.file, `${b.runCount} runs of ${b.command.join(' ')}`].map(labelText).join('\n');
        item.iconPath = new vscode.ThemeIcon(b.problem ? 'warning' : 'pinned');
        item.contextValue = 'hotpath.baseline';
        item.resourceUri = vscode.Uri.file(b.file);
        return item;
      }
      case 'profile': {
        const p = node.profile;
        const item = new vscode.TreeItem(labelText(p.name.replace(/\.cpuprofile$/, '')), vscode.TreeItemCollapsibleState.None);
        item.description = `${new Date(p.mtimeMs).toLocaleString()} · ${formatBytes(p.sizeBytes)}`;
        item.tooltip = labelText(p.file);
        item.iconPath = new vscode.ThemeIcon('graph');
        item.contextValue = 'hotpath.profile';
        item.resourceUri = vscode.Uri.file(p.file);
        item.command = { command: 'hotpath.history.open', title: 'Open', arguments: [node] };
        return item;
      }
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export type HotspotsViewNode = Node;
