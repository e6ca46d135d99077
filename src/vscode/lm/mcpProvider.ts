/**
 * Offers `hotpath mcp` to VS Code as an MCP server (contributes.mcpServerDefinitionProviders), for when
 * policy turns extension tools off but allows MCP: the extension's own CLI bundle on the extension
 * host's Node (ELECTRON_RUN_AS_NODE makes desktop VS Code's binary one), in the first workspace folder.
 */
import * as vscode from 'vscode';

export const MCP_PROVIDER_ID = 'hotpath.mcp';

export function mcpServerDefinition(extensionUri: vscode.Uri): vscode.McpStdioServerDefinition {
  const cli = vscode.Uri.joinPath(extensionUri, 'dist', 'cli.js').fsPath;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const version = (vscode.extensions.getExtension('hotpath.hotpath')?.packageJSON as { version?: string } | undefined)?.version;
  const server = new vscode.McpStdioServerDefinition('Hotpath', process.execPath, [cli, 'mcp', ...(folder ? ['--cwd', folder] : [])], { ELECTRON_RUN_AS_NODE: '1' }, version);
  if (folder) server.cwd = vscode.Uri.file(folder);
  return server;
}

/** Registers the provider; returns it too (the extension-host tests ask it what it offers). */
export function registerMcpProvider(extensionUri: vscode.Uri): { provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition>; disposables: vscode.Disposable[] } {
  const changed = new vscode.EventEmitter<void>();
  const provider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => [mcpServerDefinition(extensionUri)],
  };
  return {
    provider,
    disposables: [
      changed,
      vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider),
      // The server runs in the first folder: a new first folder is a new definition.
      vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    ],
  };
}
