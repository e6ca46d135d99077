/**
 * Waiting for the editor's layout as a state: after a resize, a scroll or the arrival of CodeLens rows,
 * Monaco lays out again over several frames, and how long that takes depends on the machine. Instead of a
 * fixed pause, read what the test will check until two reads a moment apart agree.
 */
import type { Page } from 'playwright-core';

/**
 * Calls `read` until two results `gapMs` apart are equal (JSON) and `ready` accepts the value, or
 * `timeoutMs` passes; returns the last value (the caller's assertions then say what is wrong).
 */
export async function settled<T>(page: Page, read: () => Promise<T>, options: { timeoutMs?: number; gapMs?: number; ready?: (value: T) => boolean } = {}): Promise<T> {
  const { timeoutMs = 15_000, gapMs = 300, ready = () => true } = options;
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  for (;;) {
    await page.waitForTimeout(gapMs); // the interval between two reads, not a wait for something to happen
    const now = await read();
    if (JSON.stringify(now) === JSON.stringify(last) && ready(now)) return now;
    last = now;
    if (Date.now() > deadline) return now;
  }
}

/** The workbench's and the active editor's boxes: what a resize changes. */
export function layoutOf(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const w = document.querySelector('.monaco-workbench')?.getBoundingClientRect();
    const e = document.querySelector('.editor-instance .monaco-editor')?.getBoundingClientRect();
    return [w?.width ?? 0, w?.height ?? 0, e?.left ?? 0, e?.width ?? 0, e?.height ?? 0];
  });
}
