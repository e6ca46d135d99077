/**
 * What the editor shows of Hotpath's annotations, read from the DOM as drawn: CodeLens with the line
 * each stands above, and the after-line labels of hot lines.
 */
import type { Page } from 'playwright-core';

/** A hot-line label: `4.2% · 61 ms` (self), `84.1% total · 0.1% self` (a line whose calls carry its time). */
export const LABEL = /^\s*\d+(\.\d+)?% (· [\d,.]+ (ms|s)|total · (\d+(\.\d+)?|<0\.1)% self)/;

export interface LensAt { lens: string; line: string; index: number }

/**
 * Each CodeLens in view in the visible editors, with the text of the line it stands above and its
 * index among all `.editor-instance .monaco-editor .codelens-decoration` elements (to click it).
 */
export function lensesWithLines(page: Page): Promise<LensAt[]> {
  // No named functions in here: tsx's keepNames would wrap them in a __name() the page lacks.
  return page.evaluate(() => {
    const out: { lens: string; line: string; index: number }[] = [];
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
        out.push({ lens: (lens.textContent ?? '').replace(/\u00a0/g, ' '), line: below.text, index: all.indexOf(lens) });
      }
    }
    return out;
  });
}

export interface HotLine { text: string; after: string; x: number; y: number }

/**
 * Visible editor lines that carry a hot-line after-text ("4.2% · 61 ms"), with a point on their
 * code to hover. VS Code draws `after.contentText` as the CSS `::after` content of an empty span
 * in the line (class `ced-…`), so the text is read from the computed style, as drawn.
 */
export function hotLines(page: Page): Promise<HotLine[]> {
  return page.evaluate(() => {
    const out: { text: string; after: string; x: number; y: number }[] = [];
    for (const line of document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')) {
      const after = [...line.querySelectorAll('span[class*="ced-"]')]
        .map((el) => getComputedStyle(el, '::after').content)
        .filter((c) => c && c !== 'none' && c !== 'normal')
        .map((c) => c.replace(/^"|"$/g, ''))
        .join(' ');
      if (!/\d+(\.\d+)?% (· [\d,.]+ (ms|s)|total · )/.test(after)) continue;
      const token = [...line.querySelectorAll('span > span')].find((sp) => (sp.textContent ?? '').trim().length > 1);
      const r = (token ?? line).getBoundingClientRect();
      out.push({ text: (line.textContent ?? '').replace(/\u00a0/g, ' '), after, x: r.left + Math.min(r.width / 2, 10), y: r.top + r.height / 2 });
    }
    return out;
  });
}


/**
 * Visible editor lines whose after-line labels (all of them, joined with ' ') match `pattern` — the
 * memory and event-loop labels (`allocates 19.5 KB/req`, `blocked the loop: 9 turns, up to 48 ms`).
 */
export function labelledLines(page: Page, pattern: RegExp): Promise<HotLine[]> {
  return page.evaluate(({ source, flags }) => {
    const re = new RegExp(source, flags);
    const out: { text: string; after: string; x: number; y: number }[] = [];
    for (const line of document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')) {
      const after = [...line.querySelectorAll('span[class*="ced-"]')]
        .map((el) => getComputedStyle(el, '::after').content)
        .filter((c) => c && c !== 'none' && c !== 'normal')
        .map((c) => c.replace(/^"|"$/g, ''))
        .join(' ');
      if (!re.test(after)) continue;
      const token = [...line.querySelectorAll('span > span')].find((sp) => (sp.textContent ?? '').trim().length > 1);
      const r = (token ?? line).getBoundingClientRect();
      out.push({ text: (line.textContent ?? '').replace(/\u00a0/g, ' '), after, x: r.left + Math.min(r.width / 2, 10), y: r.top + r.height / 2 });
    }
    return out;
  }, { source: pattern.source, flags: pattern.flags });
}
