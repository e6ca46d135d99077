import * as vscode from 'vscode';
import type { HotpathSession } from '../session';
import { renderStatus } from './render';

const TRUSTED_COMMANDS = ['hotpath.verifyAgainstBaseline', 'hotpath.showFlamegraph', 'hotpath.baselines.open', 'hotpath.profileWithLoad', 'hotpath.establishBaseline', 'hotpath.compareAgain', 'hotpath.checkForLeaks'];

/** One status bar item, rendered from the session's one status value. */
export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: vscode.Disposable;

  constructor(session: HotpathSession) {
    this.item = vscode.window.createStatusBarItem('hotpath.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Hotpath';
    const render = () => {
      const r = renderStatus(session.status);
      this.item.text = r.text;
      const tooltip = new vscode.MarkdownString(r.tooltip, true);
      tooltip.isTrusted = { enabledCommands: TRUSTED_COMMANDS };
      this.item.tooltip = tooltip;
      this.item.color = r.tone === 'neutral' ? undefined : new vscode.ThemeColor(`hotpath.statusBar.${r.tone}`);
      this.item.command = r.command;
      this.item.accessibilityInformation = { label: `Hotpath: ${r.text.replace(/\$\([^)]*\)\s*/g, '')}` };
    };
    this.subscription = session.onDidChangeStatus(render);
    render();
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
