/**
 * Opens profiles for the editor in a worker thread (dist/profileWorker.js): the extension host's main
 * thread stays free while a 200 MB profile is read, parsed, ranked and laid out as a flamegraph.
 * Progress comes back as messages; cancelling terminates the worker at once.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { cancelledError } from '../../core/common/errors';
import type { CancellationToken } from '../../core/common/cancellation';
import type { EditorProfile, EditorProfileRequest } from '../../core/workflow/editorProfile';

/** What the worker sends back: everything but the models, which stay in the worker. */
export type EditorView = Omit<EditorProfile, 'model' | 'before'>;
import type { WorkerMessage } from './profileWorker';

/** Next to dist/extension.js, which this module is bundled into. */
const WORKER_FILE = path.join(__dirname, 'profileWorker.js');

export function loadProfileInWorker(request: EditorProfileRequest, token: CancellationToken, onProgress: (stage: string, fraction: number) => void = () => {}, workerFile = WORKER_FILE): Promise<EditorView> {
  return new Promise<EditorView>((resolve, reject) => {
    if (token.isCancellationRequested) return reject(cancelledError('Opening the profile'));
    const worker = new Worker(workerFile, { workerData: request });
    let settled = false;
    const settle = (fn: () => void) => { if (settled) return; settled = true; sub.dispose(); fn(); void worker.terminate(); };
    const sub = token.onCancellationRequested(() => settle(() => reject(cancelledError('Opening the profile'))));
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') onProgress(m.stage, m.fraction);
      else if (m.type === 'done') settle(() => resolve(m.result as EditorView));
      else settle(() => reject(Object.assign(new Error(m.error.message), { name: m.error.name, code: m.error.code, details: m.error.details })));
    });
    worker.on('error', (err) => settle(() => reject(err)));
    worker.on('exit', (code) => settle(() => reject(new Error(`The profile reader stopped unexpectedly (exit ${code}).`))));
  });
}
