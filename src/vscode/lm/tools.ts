/**
 * Hotpath's tools as VS Code language-model tools (contributes.languageModelTools): the same registry,
 * validator and answers as `hotpath mcp` (src/core/agents). Tools that start the workspace's code ask
 * for confirmation with the exact command; read-only tools do not. While a run goes on, a progress
 * notification with Cancel shows it (VS Code's stable API has no live progress for tools).
 */
import * as vscode from 'vscode';
import { CancellationTokenSource } from '../../core/common/cancellation';
import { errorMessage } from '../../core/common/errors';
import type { ToolHost } from '../../core/agents/host';
import { DEFAULT_BUDGET, TOOLS, type ToolDefinition } from '../../core/agents/tools';
import { mdCode } from '../../shared/text/safe';
import { progressText } from '../notify';

/** Characters per token, roughly, for turning VS Code's token budget into the answer's character budget. */
const CHARS_PER_TOKEN = 3.5;

function budgetOf(options: vscode.LanguageModelToolInvocationOptions<object>): number {
  const tokens = options.tokenizationOptions?.tokenBudget;
  return tokens ? Math.max(1000, Math.min(DEFAULT_BUDGET, Math.floor(tokens * CHARS_PER_TOKEN))) : DEFAULT_BUDGET;
}

/** Both tokens: the chat request's and the progress notification's Cancel. */
function linked(...tokens: vscode.CancellationToken[]): CancellationTokenSource {
  const source = new CancellationTokenSource();
  for (const t of tokens) {
    if (t.isCancellationRequested) source.cancel();
    t.onCancellationRequested(() => source.cancel());
  }
  return source;
}

function tool(hostOf: () => ToolHost, def: ToolDefinition): vscode.LanguageModelTool<object> {
  return {
    async prepareInvocation(options, token) {
      if (!def.startsProcesses) return { invocationMessage: `Hotpath: ${def.title}` };
      let command: string;
      try {
        command = await hostOf().describe(def.name, options.input, token);
      } catch (err) {
        // Bad arguments: invoke answers with what is wrong; nothing to confirm.
        return { invocationMessage: `Hotpath: ${def.title} (${errorMessage(err)})` };
      }
      const message = new vscode.MarkdownString(`Hotpath will start this command in the workspace and stop it when done:\n\n${command.split('\n').map((l) => mdCode(l)).join('\n\n')}`);
      return { invocationMessage: `Hotpath: ${def.title}`, confirmationMessages: { title: `Hotpath: ${def.title}?`, message } };
    },
    async invoke(options, token) {
      const call = (cancel: vscode.CancellationToken, report?: (message: string) => void) => {
        const source = linked(token, cancel);
        return hostOf().call(def.name, options.input, { token: source.token, budget: budgetOf(options), ...(report ? { onProgress: (p) => report(p.message) } : {}) }).finally(() => source.dispose());
      };
      const answer = def.startsProcesses || def.name === 'hotpath_status'
        ? await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: progressText(`Hotpath (agent): ${def.title}`), cancellable: true },
          (progress, cancel) => call(cancel, (message) => progress.report({ message: progressText(message) })))
        : await call(token);
      // An error is thrown with what to do next: the model reads it as the tool's failure.
      if (answer.isError) throw new Error(answer.markdown);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answer.markdown)]);
    },
  };
}

/** `hostOf` makes the host on the first call (it comes with the workflow engine, loaded on first use). */
export function registerLanguageModelTools(hostOf: () => ToolHost): vscode.Disposable[] {
  return TOOLS.map((def) => vscode.lm.registerTool(def.name, tool(hostOf, def)));
}
