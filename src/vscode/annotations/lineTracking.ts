/**
 * Keeps annotation line numbers right while the user edits (no vscode import; unit-tested in plain
 * Node). Lines below an edit move with it; a line whose own text changed is dropped, because its time
 * was measured for code that is no longer there.
 */
export interface LineEdit {
  /** 0-based first and last line the replaced range touches (before the edit). */
  startLine: number;
  endLine: number;
  /** Newlines in the inserted text. */
  insertedLines: number;
  /**
   * True when the edit only adds whole lines above `startLine` (inserted at column 0, text ending in a
   * newline, nothing replaced): `startLine` keeps its text and just moves down.
   */
  pureInsertAbove: boolean;
}

/** New 0-based line of `line` after `edit`, or -1 when its text changed. */
export function mapLine(line: number, edit: LineEdit): number {
  const delta = edit.insertedLines - (edit.endLine - edit.startLine);
  if (line < edit.startLine) return line;
  if (line > edit.endLine) return line + delta;
  if (edit.pureInsertAbove && line === edit.startLine) return line + edit.insertedLines;
  return -1;
}

/** Applies several edits of one change event; VS Code's ranges all refer to the text before the event. */
export function mapLineThroughEdits(line: number, edits: readonly LineEdit[]): number {
  // Bottom-up, so an edit never moves the lines a later-applied (higher) edit refers to.
  const sorted = [...edits].sort((a, b) => b.startLine - a.startLine);
  let current = line;
  for (const e of sorted) {
    current = mapLine(current, e);
    if (current < 0) return -1;
  }
  return current;
}
