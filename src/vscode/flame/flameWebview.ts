import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildDiffPayload, buildFlamePayload } from '../../core/flame';
import type { ProfileModel } from '../../core/profile';
import type { Attribution } from '../../core/attribution';
import { initMessages, isWebviewMessage, type HostMessage, type ViewState } from '../../shared/protocol';
import type { FlameDiff, FlamePayload } from '../../shared/flame/payload';
import { flameHtml } from '../../shared/webviewHtml';
import { showError, showInfo } from '../notify';

export interface FlameContent {
  /** What to draw: a model (the payload is built here), or a `payload` built already. */
  model?: ProfileModel;
  title: string;
  /** Differential view: colours by the change from this profile. */
  before?: ProfileModel;
  beforeTitle?: string;
  /** Project roots of the two sides (a worktree and the working tree), so user files match; inferred when absent. */
  beforeRoot?: string;
  afterRoot?: string;
  /** What each side of a comparison ran, for the header. */
  sides?: FlameDiff['sides'];
  /** The model's attribution: inlined code drawn in frames of its own, as the editor places it. */
  attribution?: Attribution;
  /** Adds per-function extras (V8 tiers) to the payload before it is sent. */
  decorate?: (payload: FlamePayload) => void;
  /** Built already (in the profile worker, extras included): sent as it is. */
  payload?: FlamePayload;
  /** Datasets of the same run the page offers to switch to; the first is this content. */
  choices?: FlameChoice[];
}

/** Another view of the same run (allocations beside CPU time); `build` is absent for the content itself. */
export interface FlameChoice {
  id: string;
  label: string;
  build?: () => FlamePayload;
}

export function buildPayload(content: FlameContent): FlamePayload {
  if (content.payload) return content.payload;
  if (!content.model) throw new Error(`nothing to draw for ${content.title}`);
  const payload = content.before
    ? buildDiffPayload(content.before, content.model, { title: content.title, beforeTitle: content.beforeTitle, beforeRoot: content.beforeRoot, afterRoot: content.afterRoot, sides: content.sides })
    : buildFlamePayload(content.model, { title: content.title, attribution: content.attribution });
  content.decorate?.(payload);
  return payload;
}

/**
 * One flamegraph in one webview (a panel or a custom editor): the strict-CSP page from the shared
 * template, the payload sent when the page says `ready` (and again after a reload), and the page's
 * requests (open a source file, report an error) handled here. The page never gets the raw profile.
 */
export class FlameWebview implements vscode.Disposable {
  private payload: FlamePayload | undefined;
  private choices: FlameChoice[] = [];
  private active = '';
  private readonly built = new Map<string, FlamePayload>();
  private ready = false;
  private pending: HostMessage[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly webview: vscode.Webview,
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly state?: Partial<ViewState>,
    /** The column this webview is in, so sources open next to it rather than over it. */
    private readonly ownColumn: () => vscode.ViewColumn | undefined = () => undefined,
  ) {
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')] };
    this.disposables.push(webview.onDidReceiveMessage((m: unknown) => this.receive(m)));
  }

  show(content: FlameContent): void {
    try {
      this.payload = buildPayload(content);
      this.choices = content.choices ?? [];
      this.active = this.choices[0]?.id ?? '';
      this.built.clear();
      if (this.active) this.built.set(this.active, this.payload);
    } catch (err) {
      this.log.error(`Could not build the flamegraph of ${content.title}: ${(err as Error).stack ?? err}`);
      this.webview.html = `<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><p>Hotpath could not draw this profile; see the Hotpath output for details.</p>`;
      return;
    }
    this.ready = false;
    this.webview.html = flameHtml({
      nonce: randomBytes(18).toString('base64'),
      cspSource: this.webview.cspSource,
      title: `Hotpath — ${content.title}`,
      script: { src: this.webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js')).toString() },
      style: { href: this.webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'flame.css')).toString() },
    });
  }

  /** Select and reveal the hottest frame of a function (e.g. from a CodeLens). */
  focus(file: string, line: number, name?: string): void {
    const message: HostMessage = { type: 'focus', file, line, name };
    if (this.ready) void this.webview.postMessage(message);
    else this.pending.push(message);
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isWebviewMessage(raw)) {
      this.log.warn('Ignored a malformed message from the flamegraph page.');
      return;
    }
    switch (raw.type) {
      case 'ready': {
        if (!this.payload) return;
        for (const m of initMessages(this.payload, true, this.state, { choices: this.choiceList() })) await this.webview.postMessage(m);
        this.ready = true;
        for (const m of this.pending.splice(0)) await this.webview.postMessage(m);
        return;
      }
      case 'openSource':
        await openSource(raw.file, raw.line, raw.column, this.log, this.ownColumn() === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One);
        return;
      case 'showData': {
        const choice = this.choices.find((c) => c.id === raw.id);
        if (!choice || choice.id === this.active) return;
        let payload = this.built.get(choice.id);
        if (!payload && choice.build) {
          try { payload = choice.build(); } catch (err) { this.log.error(`Could not build the ${choice.label} view: ${(err as Error).stack ?? err}`); return; }
          this.built.set(choice.id, payload);
        }
        if (!payload) return;
        this.payload = payload;
        this.active = choice.id;
        for (const m of initMessages(payload, true, this.state, { choices: this.choiceList() })) await this.webview.postMessage(m);
        return;
      }
      case 'error':
        this.log.error(`Flamegraph page: ${raw.message}`);
        void showError(`Hotpath could not show the flamegraph: ${raw.message}`);
        return;
    }
  }

  private choiceList() {
    return this.choices.map((c) => ({ id: c.id, label: c.label, active: c.id === this.active }));
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/**
 * Opens a frame's file at its line. The path comes from the profile (attacker-controlled text), so only
 * local files that exist are opened, read-only in effect: nothing is executed or written.
 */
export async function openSource(file: string, line: number, column: number, log: vscode.LogOutputChannel, viewColumn = vscode.ViewColumn.One): Promise<void> {
  let fsPath: string | undefined;
  if (file.startsWith('file://')) {
    try { fsPath = vscode.Uri.parse(file, true).fsPath; } catch { fsPath = undefined; }
  } else if (path.isAbsolute(file)) {
    fsPath = file;
  }
  if (!fsPath || !fs.existsSync(fsPath) || !fs.statSync(fsPath).isFile()) {
    const what = /^node:|^internal\//.test(file) ? 'is part of Node itself and has no file on disk' : 'is not a file on this machine';
    void showInfo(`Hotpath: ${file} ${what}.`);
    log.info(`openSource: ${file} ${what}`);
    return;
  }
  const position = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(fsPath), {
    viewColumn, preserveFocus: false, preview: false, selection: new vscode.Range(position, position),
  });
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
