/**
 * Where a hot line's label goes and what it says (no vscode import; unit-tested in plain Node). One
 * label per line, the line's own share first (`17.2% · 350 ms · deopt: wrong map ×3`), so nothing of
 * its main figure ends up second, under the minimap. It sits after the line while line and label fit in
 * `maxColumn` columns; a longer line gets it above, as a CodeLens row, where it is readable whatever the
 * editor's width and horizontal scroll (the extension API cannot tell how wide the editor is).
 */
import type { DeoptAnnotation, LineAnnotation } from '../../core/annotate';
import { deoptLabel, lineLabel } from './format';

/** Lines whose label would end past this column get it above (the setting hotpath.annotations.labelColumn). */
export const DEFAULT_LABEL_COLUMN = 100;
/** The decoration's left margin (`2em`), in columns. */
const LABEL_MARGIN = 2;

export interface PlacedLabel {
  /** 0-based, as the editor counts. */
  line: number;
  text: string;
  placement: 'after' | 'above';
  /** The line has a hot-line annotation (its heat decoration carries the label); else a deopt only. */
  hot: boolean;
  /** The function the line's code belongs to (the lens above opens it in the flamegraph). */
  function: string;
}

export interface LabelLayout {
  /** The line's text now, or undefined when the document no longer has the line. */
  lineText(line: number): string | undefined;
  tabSize: number;
  maxColumn: number;
  /** CodeLens can be shown (editor.codeLens) and the editor does not wrap lines (a wrapped line's label is visible anyway). */
  above: boolean;
}

/** Columns a line takes on screen: tabs to the next tab stop, wide characters as one (good enough for code). */
export function visualWidth(text: string, tabSize: number): number {
  let col = 0;
  for (const ch of text) col = ch === '\t' ? col + tabSize - (col % tabSize) : col + 1;
  return col;
}

export function placeLabels(
  lines: ReadonlyArray<{ annotation: LineAnnotation; line: number }>,
  deopts: ReadonlyArray<{ annotation: DeoptAnnotation; line: number }>,
  layout: LabelLayout,
): Map<number, PlacedLabel> {
  const deoptsByLine = new Map<number, DeoptAnnotation[]>();
  for (const d of deopts) deoptsByLine.set(d.line, [...(deoptsByLine.get(d.line) ?? []), d.annotation]);
  const hotByLine = new Map(lines.map((l) => [l.line, l.annotation]));
  const out = new Map<number, PlacedLabel>();
  for (const line of new Set([...hotByLine.keys(), ...deoptsByLine.keys()])) {
    const text = layout.lineText(line);
    if (text === undefined) continue;
    const hot = hotByLine.get(line);
    const ds = deoptsByLine.get(line) ?? [];
    // Several deopts on a line: the most frequent is named, the rest counted (the hover lists them).
    const top = [...ds].sort((a, b) => b.count - a.count)[0];
    const deopt = top ? `${deoptLabel(top)}${ds.length > 1 ? ` +${ds.length - 1} more` : ''}` : '';
    const label = [hot ? lineLabel(hot) : '', deopt].filter(Boolean).join(' · ');
    const fits = visualWidth(text.replace(/\s+$/, ''), layout.tabSize) + LABEL_MARGIN + label.length <= layout.maxColumn;
    out.set(line, { line, text: label, placement: fits || !layout.above ? 'after' : 'above', hot: hot !== undefined, function: hot?.function ?? top!.function });
  }
  return out;
}
