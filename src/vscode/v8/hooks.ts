import type * as vscode from 'vscode';
import type { FunctionAnnotation } from '../../core/annotate';
import type { AnnotationStore } from '../annotations/store';
import type { LoadedProfile } from '../session';
import type { FlamePayload } from '../../shared/flame/payload';

/** Where V8's view of a function (tier, deopts, inlining) enters the editor UI. */
export interface V8Hooks {
  decorate?: (loaded: LoadedProfile) => ((payload: FlamePayload) => void) | undefined;
  register(store: AnnotationStore): vscode.Disposable[];
  codeLensSummary(f: FunctionAnnotation): string | undefined;
  hoverMarkdown(f: FunctionAnnotation): string | undefined;
}

export function v8Hooks(): V8Hooks {
  return {
    register: () => [],
    codeLensSummary: () => undefined,
    hoverMarkdown: () => undefined,
  };
}
