/**
 * The target's scripts as V8 sees them (Debugger.scriptParsed + getScriptSource), to convert between
 * the CPU profile's line/column positions and the script offsets V8's traces and natives use. Sources
 * come from V8, not the disk, so code compiled in memory (tsx, bundlers' dev servers) converts right.
 */
import type { CdpSession } from '../inspector/cdpClient';
import { normalizeFile } from './raw';
import { lineOfOffset, lineStartsOf } from '../common/textLines';

/** Offsets at which lines start (V8's line terminators: textLines.ts). */
export const lineStarts = lineStartsOf;

/** 1-based line and column of a script offset. */
export function positionAt(starts: Int32Array, offset: number): { line: number; column: number } {
  const line = lineOfOffset(starts, offset);
  return { line, column: offset - starts[line - 1] + 1 };
}

export class ScriptTable {
  private readonly urls = new Map<string, string>();
  private readonly byFile = new Map<string, string[]>();
  private readonly starts = new Map<string, { lines: Int32Array; length: number }>();

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
