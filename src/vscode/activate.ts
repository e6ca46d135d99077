import * as vscode from 'vscode';
import { HotFunctionCodeLens } from './annotations/codeLens';
import { HotLineDecorations } from './annotations/decorations';
import { HotLineHover } from './annotations/hover';
import { AnnotationStore } from './annotations/store';
import { registerProfileCommands } from './commands/profileCommands';
import { registerRunCommands } from './commands/runCommands';
import { registerCompareCommands } from './commands/compareCommands';
import { registerStartupBenchCommands } from './commands/startupBenchCommands';
import { StartupModuleLens } from './startup/moduleLens';
import { BenchmarkLens } from './bench/benchLens';
import { registerDebugType } from './debug/register';
import { CpuProfileEditorProvider } from './flame/cpuprofileEditor';
import { FlamePanel } from './flame/flamePanel';
import { createLog } from './log';
import { HotpathSession } from './session';
import { StatusBar } from './status/statusBar';
import { HotspotsView } from './views/hotspotsView';
import { RunController } from './workflow/runController';
import { v8Hooks } from './v8/hooks';
import { runtimeHooks } from './runtime/hooks';
import { retainedAnnotations } from './runtime/loaded';
import type { LoadedProfile } from './session';
import type { FlamePayload } from '../shared/flame/payload';
import type { LeakResult } from '../core/workflow/leakCheck';
import { threadChoices } from './flame/threadChoices';
import type { ToolHost } from '../core/agents/host';
import { registerLanguageModelTools } from './lm/tools';
import { registerMcpProvider } from './lm/mcpProvider';
import { editorEnvironment } from './lm/environment';
import { coreLogger } from './log';
import { loadEngine } from './workflow/runs';

/** Wires the pieces together; each piece gets only what it uses. */
export interface HotpathApi {
  session: HotpathSession;
  store: AnnotationStore;
  /** The agents' tool host and MCP provider (the extension-host tests drive them). */
  agents: { host: () => ToolHost; mcp: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> };
}

export function activateHotpath(context: vscode.ExtensionContext): HotpathApi {
  const started = performance.now();
  const log = createLog();
  const session = new HotpathSession();
  const flame = new FlamePanel(context.extensionUri, log);
  const store = new AnnotationStore(session);
  const v8 = v8Hooks();
  const runtime = runtimeHooks(session, store);
  const decorate = (loaded: LoadedProfile) => {
    const parts = [v8.decorate?.(loaded), runtime.decorate(loaded)].filter((d) => d !== undefined);
    return parts.length ? (payload: FlamePayload) => { for (const d of parts) d(payload); } : undefined;
  };
  const applyContext = {
    session, flame, log, decorate, flameChoices: (loaded: LoadedProfile) => threadChoices(loaded, runtime.choices(loaded), runtime.decorate(loaded)),
    showRetained: (result: LeakResult) => runtime.store.setRetained(retainedAnnotations(result), `${result.name} (${new Date().toLocaleTimeString()})`),
  };
  const controller = new RunController(applyContext);
  const view = new HotspotsView(session);
  const files = { scheme: 'file' };
  // Agents' tools: the same host as `hotpath mcp`, its runs through the controller (the editor shows them).
  let host: ToolHost | undefined;
  const hostOf = () => (host ??= new (loadEngine().ToolHost)(editorEnvironment(controller, coreLogger(log))));
  const mcp = registerMcpProvider(context.extensionUri);

  context.subscriptions.push(
    log, session, flame, store, view, controller,
    new StatusBar(session),
    new HotLineDecorations(store),
    ...v8.register(store),
    ...runtime.register(),
    vscode.languages.registerCodeLensProvider(files, new HotFunctionCodeLens(store, v8.codeLensSummary)),
    vscode.languages.registerHoverProvider(files, new HotLineHover(store, v8.hoverMarkdown)),
    vscode.languages.registerCodeLensProvider(files, new StartupModuleLens(session)),
    vscode.languages.registerCodeLensProvider(files, new BenchmarkLens(session)),
    vscode.window.registerTreeDataProvider('hotpathHotspots', view),
    vscode.window.registerCustomEditorProvider(CpuProfileEditorProvider.viewType, new CpuProfileEditorProvider(context.extensionUri, session, log), { supportsMultipleEditorsPerDocument: true, webviewOptions: { retainContextWhenHidden: true } }),
    ...registerRunCommands({ controller, state: context.workspaceState }),
    ...registerStartupBenchCommands({ controller, state: context.workspaceState }),
    ...registerProfileCommands({ ...applyContext, store, view }),
    ...registerCompareCommands({ controller, state: context.workspaceState, session }),
    ...registerDebugType(controller),
    ...registerLanguageModelTools(hostOf),
    ...mcp.disposables,
    // Runs an agent started stop with the extension (their apps do not outlive the editor).
    { dispose: () => void host?.stopAll() },
  );
  log.info(`Hotpath activated in ${(performance.now() - started).toFixed(1)} ms (trusted workspace: ${vscode.workspace.isTrusted}).`);
  return { session, store, agents: { host: hostOf, mcp: mcp.provider } };
}
