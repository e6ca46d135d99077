import * as vscode from 'vscode';
import { errorMessage, ErrorCode, isHotpathError } from '../../core/common/errors';
import type { HotpathSession } from '../session';
import { loadedFromFile } from '../workflow/loadedProfile';
import { escapeHtml } from '../../shared/webviewHtml';
import { FlameWebview } from './flameWebview';
import { threadChoices } from './threadChoices';
import { showError } from '../notify';

class ProfileDocument implements vscode.CustomDocument {
  constructor(readonly uri: vscode.Uri) {}
  dispose(): void {}
}

/**
 * "Open With… → Hotpath Flamegraph" for .cpuprofile files. Opening one also makes it the profile the
 * editor annotates, as "Hotpath: Open CPU Profile…" does.
 */
export class CpuProfileEditorProvider implements vscode.CustomReadonlyEditorProvider<ProfileDocument> {
  static readonly viewType = 'hotpath.cpuprofile';

  constructor(private readonly extensionUri: vscode.Uri, private readonly session: HotpathSession, private readonly log: vscode.LogOutputChannel) {}

  openCustomDocument(uri: vscode.Uri): ProfileDocument {
    return new ProfileDocument(uri);
  }

  async resolveCustomEditor(document: ProfileDocument, panel: vscode.WebviewPanel, token: vscode.CancellationToken): Promise<void> {
    const view = new FlameWebview(panel.webview, this.extensionUri, this.log, undefined, () => panel.viewColumn);
    panel.onDidDispose(() => view.dispose());
    try {
      panel.webview.html = '<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src \'none\'"><p>Hotpath is reading the profile…</p>';
      const loaded = await loadedFromFile(document.uri.fsPath, { token });
      this.session.setProfile(loaded);
      view.show({ model: loaded.model, title: loaded.title, payload: loaded.payload, choices: threadChoices(loaded, undefined) });
    } catch (err) {
      if (isHotpathError(err, ErrorCode.Cancelled)) return; // the editor was closed while it loaded
      const message = errorMessage(err);
      this.log.error(`Opening ${document.uri.fsPath}: ${message}`);
      panel.webview.html = `<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><p>Hotpath could not open this profile: ${escapeHtml(message)}</p>`;
      void showError(`Hotpath: ${message}`);
    }
  }
}
