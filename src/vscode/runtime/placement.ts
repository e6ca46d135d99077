/**
 * Where an allocation or "blocked the loop" label goes (no vscode import; unit-tested in plain Node):
 * after the line while the line, the labels already after it (the CPU share) and this one fit in
 * `maxColumn` columns; else above the line in a CodeLens row, as hot-line labels do (lineLabels.ts) —
 * never past the right edge of the editor, where nobody sees it.
 */
import { visualWidth } from '../annotations/lineLabels';

/** The decorations' left margin (`2em`), in columns. */
const LABEL_MARGIN = 2;

export interface RuntimeLayout {
  tabSize: number;
  maxColumn: number;
  above: boolean;
}

export function runtimePlacement(lineText: string, afterLabels: readonly string[], label: string, layout: RuntimeLayout): 'after' | 'above' {
  const width = visualWidth(lineText.replace(/\s+$/, ''), layout.tabSize)
    + afterLabels.reduce((n, l) => n + LABEL_MARGIN + l.length, 0) + LABEL_MARGIN + label.length;
  return width <= layout.maxColumn || !layout.above ? 'after' : 'above';
}
