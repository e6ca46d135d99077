/** Where allocations, leaks and the event loop enter the editor UI (labels, hovers, flamegraph, a toggle). */
import * as vscode from 'vscode';
import { addBlockingLane } from '../../core/loop/flameLane';
import { allocationFlamePayload } from '../../core/memory/flame';
import type { FlamePayload } from '../../shared/flame/payload';
import type { AnnotationStore } from '../annotations/store';
import type { FlameChoice } from '../flame/flameWebview';
import type { HotpathSession, LoadedProfile } from '../session';
import { RuntimeDecorations } from './runtimeDecorations';
import { RuntimeHover } from './runtimeHover';
import { RuntimeLabelLens } from './runtimeLens';
import { RuntimeAnnotationStore } from './runtimeStore';

export interface RuntimeHooks {
  store: RuntimeAnnotationStore;
  register(): vscode.Disposable[];
  /** The blocking lane for the CPU flamegraph. */
  decorate(loaded: LoadedProfile): ((payload: FlamePayload) => void) | undefined;
  /** "CPU time | Allocations" in the flamegraph panel, when the run sampled allocations. */
  choices(loaded: LoadedProfile): FlameChoice[] | undefined;
}

export function runtimeHooks(session: HotpathSession, cpu: AnnotationStore): RuntimeHooks {
  const store = new RuntimeAnnotationStore(session, cpu);
  return {
    store,
    register: () => [
      store,
      new RuntimeDecorations(store, cpu),
      vscode.languages.registerCodeLensProvider({ scheme: 'file' }, new RuntimeLabelLens(store, cpu)),
      vscode.languages.registerHoverProvider({ scheme: 'file' }, new RuntimeHover(store, cpu)),
      vscode.commands.registerCommand('hotpath.toggleAllocationAnnotations', async () => {
        const next = !store.allocationsEnabled;
        store.setAllocationsEnabled(next);
        void vscode.window.setStatusBarMessage(`Hotpath allocation annotations ${next ? 'shown' : 'hidden'}`, 2500);
      }),
    ],
    decorate: (loaded) => (loaded.blocking ? (payload) => addBlockingLane(payload, loaded.blocking) : undefined),
    choices: (loaded) => {
      const allocation = loaded.allocation;
      if (!allocation) return undefined;
      return [
        { id: 'cpu', label: 'CPU time' },
        { id: 'allocations', label: 'Allocations', build: () => allocationFlamePayload(allocation.model, { title: allocation.title, requests: allocation.requests, attribution: allocation.attribution }) },
      ];
    },
  };
}
