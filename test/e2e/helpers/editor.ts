/**
 * What the editor shows of Hotpath's annotations, read from the DOM as drawn: CodeLens with the line
 * each stands above, and the after-line labels of hot lines.
 */
import type { Locator, Page } from 'playwright-core';

/** A hot-line label: `4.2% · 61 ms` (self), `84.1% total · 0.1% self` (a line whose calls carry its time). */
export const LABEL = /^\s*\d+(\.\d+)?% (· [\d,.]+ (ms|s)|total · (\d+(\.\d+)?|<0\.1)% self)/;

export interface LensAt {
  lens: string;
  line: string;
  index: number;
  /** The row carries a hot line's label (a line too long for it at its end), marked by the arrow-small-down icon. */
  lineLabel: boolean;
}

/**
 * Each CodeLens in view in the visible editors, with the text of the line it stands above and its
 * index among all `.editor-instance .monaco-editor .codelens-decoration` elements (to click it).
 */
export function lensesWithLines(page: Page): Promise<LensAt[]> {
  // No named functions in here: tsx's keepNames would wrap them in a __name() the page lacks.
  return page.evaluate(() => {
    const out: { lens: string; line: string; index: number; lineLabel: boolean }[] = [];
    const all = [...document.querySelectorAll('.editor-instance .monaco-editor .codelens-decoration')];
    for (const editor of document.querySelectorAll('.editor-instance .monaco-editor')) {
      const view = editor.getBoundingClientRect();
      const lines = [...editor.querySelectorAll('.view-lines .view-line')].map((l) => ({ top: l.getBoundingClientRect().top, bottom: l.getBoundingClientRect().bottom, text: (l.textContent ?? '').replace(/\u00a0/g, ' ') }));
      for (const lens of editor.querySelectorAll('.codelens-decoration')) {
        const r = lens.getBoundingClientRect();
        // Monaco keeps lenses of lines scrolled out of view in the DOM; only lines in view are rendered.
        if (!r.height || r.top < view.top || r.bottom > view.bottom - 20) continue;
        // Monaco hides (visibility) the widgets of lines it has scrolled away, leaving their last position.
        if (getComputedStyle(lens).visibility === 'hidden') continue;
        // The lens is drawn in a view zone right above its line: the line that starts where the lens
        // ends. None there means the lens is stale (mid-scroll): skip it rather than pair it with a
        // line it does not stand above.
        const below = lines.filter((l) => l.top >= r.bottom - 2 && l.top <= r.bottom + 8).sort((a, b) => a.top - b.top)[0];
        const overText = lines.some((l) => l.top < r.bottom - 2 && l.bottom > r.top + 2);
        if (!below || overText) continue;
        out.push({ lens: (lens.textContent ?? '').replace(/\u00a0/g, ' '), line: below.text, index: all.indexOf(lens), lineLabel: lens.querySelector('.codicon-arrow-small-down') !== null });
      }
    }
    return out;
  });
}

/**
 * `after`: the line's after-texts joined with ' ' (or the lens row's text, `where: 'above'`); `labels`: the
 * same one by one — a hot line can carry a "blocked the loop" label beside its CPU label. `hoverable`: the
 * point (x, y) is on the line's own text, not under something drawn over it — the sticky scroll header at
 * the top of the editor covers the first lines in view (a hover there never comes: seen in CI), and a
 * line half out of view has its point outside the editor.
 */
export interface HotLine { text: string; after: string; labels: string[]; x: number; y: number; where: 'after' | 'above'; hoverable: boolean }

/**
 * Visible editor lines that carry a hot-line label ("4.2% · 61 ms"), with a point on their code to
 * hover. The label is after the line — VS Code draws `after.contentText` as the CSS `::after` content of
 * an empty span in the line (class `ced-…`), read from the computed style, as drawn — or, for a line too
 * long for it, in the CodeLens row above the line, marked by the arrow-small-down icon.
 */
export function hotLines(page: Page): Promise<HotLine[]> {
  return labelsInView(page, /\d+(\.\d+)?% (· [\d,.]+ (ms|s)|total · )/, 'arrow-small-down');
}

/**
 * Lines whose after-line labels (joined with ' ') match `pattern`, and lines with a CodeLens row above
 * them marked by `icon` (a label too long for the line's end) whose text matches `pattern` too: a row
 * above a line may carry another label (a deopt alone, `deopt: … ×2`, when the line ran too little to
 * have a share), which is not a hot-line label (seen in CI).
 */
function labelsInView(page: Page, pattern: RegExp, icon: string): Promise<HotLine[]> {
  // No named functions in here: tsx's keepNames would wrap them in a __name() the page lacks.
  return page.evaluate(({ source, flags, icon }) => {
    const re = new RegExp(source, flags);
    const out: HotLine[] = [];
    for (const editor of document.querySelectorAll('.editor-instance .monaco-editor')) {
      const viewLines = [...editor.querySelectorAll('.view-lines .view-line')];
      const found: { line: Element; after: string; labels: string[]; where: 'after' | 'above' }[] = [];
      for (const line of viewLines) {
        const labels = [...line.querySelectorAll('span[class*="ced-"]')]
          .map((el) => getComputedStyle(el, '::after').content)
          .filter((c) => c && c !== 'none' && c !== 'normal')
          .map((c) => c.replace(/^"|"$/g, ''));
        const after = labels.join(' ');
        if (re.test(after)) found.push({ line, after, labels, where: 'after' });
      }
      for (const mark of editor.querySelectorAll(`.codelens-decoration .codicon-${icon}`)) {
        const lens = mark.closest('a') ?? mark.parentElement!;
        const r = lens.getBoundingClientRect();
        const text = (lens.textContent ?? '').replace(/\u00a0/g, ' ').trim();
        if (!r.height || !re.test(text)) continue;
        // A CodeLens row is a content widget above its line. Monaco keeps widgets of lines out of view,
        // hidden (visibility: hidden) at the top of the editor: they must not be read as labels of the
        // first visible line (seen: two such rows taken for labels of a comment line).
        const widget = lens.closest('.codelens-decoration');
        if (widget && getComputedStyle(widget).visibility === 'hidden') continue;
        const below = viewLines.map((l) => ({ l, top: l.getBoundingClientRect().top })).filter((x) => x.top >= r.bottom - 2).sort((a, b) => a.top - b.top)[0]?.l;
        if (below) found.push({ line: below, after: text, labels: [text], where: 'above' });
      }
      for (const f of found) {
        const token = [...f.line.querySelectorAll('span > span')].find((sp) => (sp.textContent ?? '').trim().length > 1);
        const r = (token ?? f.line).getBoundingClientRect();
        const x = r.left + Math.min(r.width / 2, 10);
        const y = r.top + r.height / 2;
        const hit = document.elementFromPoint(x, y);
        out.push({ text: (f.line.textContent ?? '').replace(/\u00a0/g, ' '), after: f.after, labels: f.labels, x, y, where: f.where, hoverable: !!hit && f.line.contains(hit) });
      }
    }
    return out;
  }, { source: pattern.source, flags: pattern.flags, icon });
}

/** `textLeft`: where the last label's text starts (after its margin); `charWidth`: of its (monospace) text. */
export interface DrawnLabel { line: string; labels: string[]; left: number; right: number; textLeft: number; charWidth: number }
export interface EditorBounds { contentLeft: number; contentRight: number; minimapLeft: number | null }

/**
 * Every after-line text of the visible editor as drawn, per line (all of them, Hotpath's and any other),
 * with the horizontal extent of the line's last label, and where the editor's text area ends (the
 * minimap's left edge, when there is a minimap). To tell whether a label is readable: inside the text
 * area and not under the minimap.
 */
export function drawnLabels(page: Page): Promise<{ bounds: EditorBounds; lines: DrawnLabel[] }> {
  return page.evaluate(() => {
    const editor = document.querySelector('.editor-instance .monaco-editor')!;
    const scrollable = editor.querySelector('.monaco-scrollable-element.editor-scrollable')!.getBoundingClientRect();
    const minimap = editor.querySelector('.minimap');
    const minimapRect = minimap ? minimap.getBoundingClientRect() : null;
    const lines: { line: string; labels: string[]; left: number; right: number; textLeft: number; charWidth: number }[] = [];
    for (const line of editor.querySelectorAll('.view-lines .view-line')) {
      const spans = [...line.querySelectorAll('span[class*="ced-"]')]
        .map((el) => ({ el, content: getComputedStyle(el, '::after').content }))
        .filter((x) => x.content && x.content !== 'none' && x.content !== 'normal');
      if (!spans.length) continue;
      const lastSpan = spans[spans.length - 1];
      const last = lastSpan.el.getBoundingClientRect();
      const labels = spans.map((x) => x.content.replace(/^"|"$/g, ''));
      const textLeft = last.left + parseFloat(getComputedStyle(lastSpan.el, '::after').marginLeft || '0');
      const text = labels[labels.length - 1];
      lines.push({ line: (line.textContent ?? '').replace(/\u00a0/g, ' '), labels, left: last.left, right: last.right, textLeft, charWidth: text.length ? (last.right - textLeft) / text.length : 0 });
    }
    return {
      bounds: { contentLeft: scrollable.left, contentRight: scrollable.right, minimapLeft: minimapRect && minimapRect.width > 0 ? minimapRect.left : null },
      lines,
    };
  });
}

/**
 * Visible editor lines whose after-line labels (all of them, joined with ' ') match `pattern` — the
 * memory and event-loop labels (`allocates 19.5 KB/req`, `blocked the loop: 9 turns, up to 48 ms`) —
 * or whose label is in the CodeLens row above them (a line too long for it at its end).
 */
export function labelledLines(page: Page, pattern: RegExp): Promise<HotLine[]> {
  return labelsInView(page, pattern, 'triangle-down');
}

/**
 * Hovers a point on a line's code until VS Code shows a hover containing `text`; returns that hover.
 * `locate` finds the line again before each attempt: a CodeLens row that arrives above the line after
 * it was found moves it down, and a hover at the old point shows the line above (CI hovered the comment
 * above `catalogPage` four times, its function's lens having come in between).
 */
export async function hoverOn(page: Page, locate: () => Promise<{ x: number; y: number }>, text: string, attemptMs = 10_000): Promise<Locator> {
  const hover = page.locator('.monaco-hover:visible', { hasText: text }).first();
  for (let attempt = 0; ; attempt++) {
    const at = await locate();
    await page.mouse.move(at.x - 3, at.y); // a move within the same point shows no new hover
    await page.mouse.move(at.x, at.y, { steps: 3 });
    try { await hover.waitFor({ timeout: attemptMs }); return hover; } catch (err) { if (attempt >= 3) throw err; }
  }
}
