/**
 * The target's scripts as V8 sees them (Debugger.scriptParsed + getScriptSource), to convert between
 * the CPU profile's line/column positions and the script offsets V8's traces and natives use. Sources
 * come from V8, not the disk, so code compiled in memory (tsx, bundlers' dev servers) converts right.
 */
import type { CdpSession } from '../inspector/cdpClient';
import { normalizeFile } from './raw';

/**
 * Offsets at which lines start, with V8's line terminators (String::CalculateLineEnds): \n, \r not
 * followed by \n, U+2028 and U+2029 — so line numbers match the profiler's.
 */
export function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || c === 0x2028 || c === 0x2029 || (c === 13 && source.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

/** 1-based line and column of a script offset. */
export function positionAt(starts: number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}

export class ScriptTable {
  private readonly urls = new Map<string, string>();
  private readonly byFile = new Map<string, string[]>();
  private readonly starts = new Map<string, { lines: number[]; length: number }>();

  private constructor(private readonly session: CdpSession) {}

  /** Lists the target's scripts (Debugger.enable replays scriptParsed for each before it answers). */
  static async load(session: CdpSession): Promise<ScriptTable> {
    const table = new ScriptTable(session);
    const sub = session.onEvent('Debugger.scriptParsed', ({ scriptId, url }: { scriptId: string; url: string }) => {
      if (!url) return;
      table.urls.set(scriptId, url);
      const file = normalizeFile(url);
      const ids = table.byFile.get(file);
      if (ids) ids.push(scriptId);
      else table.byFile.set(file, [scriptId]);
    });
    try {
      await session.send('Debugger.enable');
    } finally {
      sub.dispose();
    }
    return table;
  }

  /** Reads the sources of the scripts behind `files`, then disables the debugger again. */
  async fetchSources(files: Iterable<string>): Promise<void> {
    try {
      for (const file of files) {
        for (const id of this.byFile.get(file) ?? []) {
          if (this.starts.has(id)) continue;
          const r = await this.session.trySend<{ scriptSource: string }>('Debugger.getScriptSource', { scriptId: id });
          if (r && typeof r.scriptSource === 'string') this.starts.set(id, { lines: lineStarts(r.scriptSource), length: r.scriptSource.length });
        }
      }
    } finally {
      await this.session.trySend('Debugger.disable');
    }
  }

  idsOf(file: string): string[] {
    return (this.byFile.get(file) ?? []).filter((id) => this.starts.has(id));
  }

  urlOf(id: string): string | undefined {
    return this.urls.get(id);
  }

  /** Offset of a 1-based line/column, or undefined outside the script. */
  offsetOf(id: string, line: number, column: number): number | undefined {
    const s = this.starts.get(id);
    if (!s || line < 1 || line > s.lines.length) return undefined;
    const offset = s.lines[line - 1] + column - 1;
    return offset <= s.length ? offset : undefined;
  }

  positionOf(id: string, offset: number): { line: number; column: number } | undefined {
    const s = this.starts.get(id);
    if (!s || offset < 0 || offset > s.length) return undefined;
    return positionAt(s.lines, offset);
  }

  positionInFile(file: string, offset: number): { line: number; column: number } | undefined {
    for (const id of this.idsOf(file)) {
      const at = this.positionOf(id, offset);
      if (at) return at;
    }
    return undefined;
  }
}
