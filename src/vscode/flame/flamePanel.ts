import * as vscode from 'vscode';
import { FlameWebview, type FlameContent } from './flameWebview';

/** The one "Hotpath Flamegraph" panel: reused for every profile, opened beside the editor. */
export class FlamePanel implements vscode.Disposable {
  static readonly viewType = 'hotpath.flamegraph';
  private panel: vscode.WebviewPanel | undefined;
  private view: FlameWebview | undefined;
  /** What the panel draws now (its content's model, or built payload), while it is open. */
  private shown: object | undefined;

  constructor(private readonly extensionUri: vscode.Uri, private readonly log: vscode.LogOutputChannel) {}

  /**
   * Whether the panel is open (visible or behind another tab) on this model or payload. Such a panel
   * needs only revealing: drawing it again would reload the page and lose the user's zoom and search.
   */
  shows(content: object | undefined): boolean { return content !== undefined && this.panel !== undefined && this.shown === content; }

  show(content: FlameContent, options: { preserveFocus?: boolean } = {}): void {
    if (!this.panel) {
      // Code on the left, flamegraph on the right: with no editor open, "Beside" would mean column one,
      // and the source files the flamegraph opens would then cover it.
      const column = vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Two;
      this.panel = vscode.window.createWebviewPanel(FlamePanel.viewType, 'Hotpath Flamegraph', { viewColumn: column, preserveFocus: options.preserveFocus ?? true }, { retainContextWhenHidden: true });
      this.panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'hotpath.svg');
      this.view = new FlameWebview(this.panel.webview, this.extensionUri, this.log, undefined, () => this.panel?.viewColumn);
      this.panel.onDidDispose(() => { this.view?.dispose(); this.view = undefined; this.panel = undefined; this.shown = undefined; });
    } else {
      this.panel.reveal(undefined, options.preserveFocus ?? true);
    }
    this.panel.title = `Flamegraph — ${content.title}`;
    this.shown = content.model ?? content.payload;
    this.view!.show(content);
  }

  focus(file: string, line: number, name?: string): void {
    this.panel?.reveal(undefined, true);
    this.view?.focus(file, line, name);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
