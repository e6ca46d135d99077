import * as vscode from 'vscode';
import type { CancellationToken } from '../../core/common/cancellation';
import { cancelledError } from '../../core/common/errors';
import type { RequestChoice, RequestChooser, RequestOffer, RouteMiss } from '../../core/workflow/requestPath';
import { requestItems, requestPrompt, type RequestItem } from './requestItems';
import type { TargetSpec } from './targetSpec';
import { STAY } from '../pickerFocus';

/** Per target name: the request the user chose last (the run-time pick and the 404 retry write it). */
const LAST_REQUESTS = 'hotpath.lastRequests';

type Remembered = Record<string, RequestChoice>;

export function lastRequest(state: vscode.Memento, targetName: string): RequestChoice | undefined {
  return state.get<Remembered>(LAST_REQUESTS)?.[targetName];
}

export async function rememberRequest(state: vscode.Memento, targetName: string, choice: RequestChoice | undefined): Promise<void> {
  const all = { ...(state.get<Remembered>(LAST_REQUESTS) ?? {}) };
  if (choice) all[targetName] = choice; else delete all[targetName];
  await state.update(LAST_REQUESTS, all);
}

/** The target with the request remembered for it, when it names none itself. */
export function withRememberedRequest(target: TargetSpec, state: vscode.Memento): TargetSpec {
  if (target.path !== undefined) return target;
  const last = lastRequest(state, target.name);
  return last ? { ...target, path: last.path, ...(target.method ? {} : last.method ? { method: last.method } : {}) } : target;
}

/**
 * Asks, while the app runs, which request to load: a quick pick of what the app told (its startup
 * URLs, its route table), the root, or any path. The answer is remembered for the target. Closing the
 * picker or cancelling the run (the token) stops the run.
 */
export function requestPicker(state: vscode.Memento, target: TargetSpec): RequestChooser {
  const pick = async (offer: RequestOffer, token: CancellationToken, miss?: RouteMiss): Promise<RequestChoice | undefined> => {
    const item = await quickPick(requestItems(offer, miss), requestPrompt(offer, miss), token);
    if (!item) return undefined;
    let choice: RequestChoice | undefined = item.choice;
    if (!choice && item.edit) {
      const path = await pathInput(item.edit.value, item.edit.selection, token);
      if (path === undefined) return undefined;
      choice = { path, method: item.edit.method };
    }
    if (choice) await rememberRequest(state, target.name, choice);
    return choice;
  };
  return {
    lastUsed: lastRequest(state, target.name),
    async choose(offer, token) {
      const choice = await pick(offer, token);
      if (!choice) throw cancelledError();
      return choice;
    },
    retry: (offer, miss, token) => pick(offer, token, miss),
  };
}

function quickPick(items: RequestItem[], prompt: { title: string; placeHolder: string }, token: CancellationToken): Promise<RequestItem | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<RequestItem & vscode.QuickPickItem>();
    qp.title = prompt.title;
    qp.placeholder = prompt.placeHolder;
    qp.items = items;
    qp.matchOnDescription = true;
    // The app is running and waits for the answer: clicking elsewhere must not stop it.
    qp.ignoreFocusOut = true;
    let picked: RequestItem | undefined;
    const cancel = token.onCancellationRequested(() => qp.hide());
    qp.onDidAccept(() => { picked = qp.selectedItems[0]; qp.hide(); });
    qp.onDidHide(() => { cancel.dispose(); qp.dispose(); resolve(picked); });
    qp.show();
  });
}

async function pathInput(value: string, selection: [number, number] | undefined, token: CancellationToken): Promise<string | undefined> {
  const source = new vscode.CancellationTokenSource();
  const link = token.onCancellationRequested(() => source.cancel());
  try {
    return await vscode.window.showInputBox({
      title: 'Hotpath: request path to load',
      prompt: 'Path and query on the app\'s port, e.g. /api/stores/42 or /api/items?limit=10',
      value,
      // A parameter is selected, so typing replaces it; a free path keeps what is there (cursor at the end).
      valueSelection: selection ?? [value.length, value.length],
      ...STAY,
      validateInput: (v) => (v.startsWith('/') && !/\s/.test(v) ? undefined : 'A path starts with / and has no spaces, e.g. /api/products'),
    }, source.token);
  } finally {
    link.dispose();
    source.dispose();
  }
}
