/**
 * Worker-thread entry (dist/profileWorker.js): opens a profile for the editor (editorProfile.ts) so the
 * extension host's main thread — shared with every other extension — never parses. Posts progress,
 * then the result with its typed arrays transferred (not copied). No `vscode` here: workers have none.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { loadEditorProfile, type EditorProfileRequest } from '../../core/workflow/editorProfile';

export type WorkerMessage =
  | { type: 'progress'; stage: string; fraction: number }
  | { type: 'done'; result: unknown }
  | { type: 'error'; error: { name: string; message: string; code?: string; details?: unknown } };

/** Every ArrayBuffer under `value` (typed arrays of the model and the payload), once each. */
function buffersOf(value: unknown, out = new Set<ArrayBuffer>(), seen = new Set<object>()): Set<ArrayBuffer> {
  if (!value || typeof value !== 'object' || seen.has(value)) return out;
  seen.add(value);
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) out.add(value.buffer);
    return out;
  }
  if (Array.isArray(value)) {
    // Arrays of plain values (strings, numbers) hold no buffers: look at the first element only.
    if (value.length && typeof value[0] === 'object') for (const v of value) buffersOf(v, out, seen);
    return out;
  }
  if (value instanceof Map) { for (const v of value.values()) buffersOf(v, out, seen); return out; }
  for (const v of Object.values(value)) buffersOf(v, out, seen);
  return out;
}

/**
 * This thread yields the CPU to the extension host's main thread (and the rest of the machine) when
 * they compete: on Linux a thread has its own nice value, and /proc/thread-self names this thread.
 */
function lowerPriority(): void {
  try {
    const tid = Number(/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]);
    if (tid) os.setPriority(tid, 10);
  } catch { /* not Linux, or not allowed: run at normal priority */ }
}

async function main(): Promise<void> {
  lowerPriority();
  const port = parentPort!;
  const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  try {
    const full = await loadEditorProfile(workerData as EditorProfileRequest, undefined, (stage, fraction) => post({ type: 'progress', stage, fraction }));
    // Only what the editor draws crosses over: the model (hundreds of thousands of objects on a big
    // profile) would take the main thread ~100 ms just to receive.
    const { model: _model, before: _before, ...result } = full;
    post({ type: 'done', result }, [...buffersOf(result)]);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    post({ type: 'error', error: { name: e.name, message: e.message, code: (e as { code?: string }).code, details: (e as { details?: unknown }).details } });
  }
}

void main();
