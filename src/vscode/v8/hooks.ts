import type * as vscode from 'vscode';
import type { FunctionAnnotation } from '../../core/annotate';
import { addV8FlameExtras } from '../../core/v8/flameExtras';
import { formatV8Summary } from '../../core/v8/format';
import { DeoptDecorations } from '../annotations/deoptDecorations';
import { v8FunctionMarkdown } from '../annotations/format';
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
    decorate: (loaded) => {
      const byFunction = loaded.v8Functions;
      return byFunction && byFunction.size ? (payload) => { addV8FlameExtras(payload, byFunction); } : undefined;
    },
    register: (store) => [new DeoptDecorations(store)],
    codeLensSummary: (f) => (f.v8 ? formatV8Summary(f.v8) : undefined),
    hoverMarkdown: (f) => (f.v8 ? v8FunctionMarkdown(f.v8) : undefined),
  };
}
