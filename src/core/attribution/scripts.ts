/**
 * Scripts as V8 ran them, and their display positions. The profile names scripts by URL; V8's signals
 * and require() name them by path; attribution parses what V8 ran (the generated JavaScript) and maps
 * positions through the script's source map to what the user edits — or, when V8 ran code compiled in
 * memory (tsx, ts-node), parses the original file and works in its coordinates.
 */
import { pathToFileURL } from 'node:url';
import { boundedTextReader } from '../common/boundedRead';
import type { TraceMap } from '@jridgewell/trace-mapping';
import { urlToFile } from '../profile/categories';
import { displayPosition } from '../profile/hotspots';
import { AMBIGUOUS_LINE } from '../profile/lines';
import { loadMap, mapLine, mapPoint, presentSources } from '../profile/sourceMaps';
import type { FileReader, ProfileModel } from '../profile/types';
import type { SourceFile } from './sourceFile';
import type { SourcePos } from './sourceIndex';
import type { SourceProvider } from './sources';

export interface Unit {
  file: SourceFile;
  /** 'generated': positions are V8's (line ticks can be checked); 'display': the original file's. */
  coords: 'generated' | 'display';
}

export interface DisplayPos {
  file: string;
  line: number;
  column: number | null;
}

// Source maps are named by the profile's scripts (a `sourceMappingURL` comment, a sibling `.map`): the
// one bounded reader for profile-named files, so a FIFO or a device there is refused, not waited on.
const defaultReader: FileReader = boundedTextReader();

export class Scripts {
  private readonly maps = new Map<string, Promise<{ map: TraceMap; present: Set<string> } | null>>();
  private readonly reader: FileReader;
  /** Script path → the URL the profile uses for it (for source-map sidecar lookups). */
  private readonly urlOfFile = new Map<string, string>();

  constructor(
    private readonly model: ProfileModel,
    private readonly sources: SourceProvider,
    private readonly sourceMapUrls: Record<string, string> = {},
    reader: FileReader = defaultReader,
  ) {
    // Scripts already read for attribution are not read again to find their source maps.
    this.reader = {
      readFile: async (file) => (file.endsWith('.map') ? undefined : (await this.sources.file(file).catch(() => undefined))?.text) ?? reader.readFile(file),
      ...(reader.exists ? { exists: reader.exists.bind(reader) } : {}),
    };
    for (const info of model.functions) if (info.url) this.urlOfFile.set(urlToFile(info.url), info.url);
  }

  /**
   * True when V8 ran code compiled in memory for this script (tsx, ts-node): it reported a source map
   * the file on disk does not declare, so the file is the original, not what ran.
   */
  private inMemory(url: string, file: SourceFile): boolean {
    const runtime = this.sourceMapUrls[url];
    return runtime !== undefined && file.sourceMappingUrl !== runtime;
  }

  /** The unit a model function's code is read from, and the function's position in it. */
  async unitOfFunction(f: number): Promise<{ unit: Unit; pos: SourcePos } | undefined> {
    const info = this.model.functions[f];
    if (!info.url || info.line === null) return undefined;
    const disk = await this.sources.file(info.file);
    if (disk && !this.inMemory(info.url, disk)) return { unit: { file: disk, coords: 'generated' }, pos: { line: info.line, column: (info.column ?? 1) - 1 } };
    const shown = displayPosition(info);
    if (info.originalFile !== undefined && shown.line !== null) {
      const original = await this.sources.file(shown.file);
      if (original) return { unit: { file: original, coords: 'display' }, pos: { line: shown.line, column: (shown.column ?? 1) - 1 } };
    }
    return undefined;
  }

  /** A script by its path (V8's spelling), when V8 ran that file as it is on disk (generated coordinates). */
  async generatedFile(file: string): Promise<SourceFile | undefined> {
    const url = this.urlOfFile.get(file) ?? (file.startsWith('/') ? pathToFileURL(file).href : file);
    const source = await this.sources.file(file);
    return source && !this.inMemory(url, source) ? source : undefined;
  }

  /** Any readable file (original sources, in their own coordinates). */
  sourceFile(file: string): Promise<SourceFile | undefined> {
    return this.sources.file(file);
  }

  private mapOf(file: string): Promise<{ map: TraceMap; present: Set<string> } | null> {
    let m = this.maps.get(file);
    if (!m) {
      const url = this.urlOfFile.get(file) ?? pathToFileURL(file).href;
      m = loadMap(url, this.reader, [], this.sourceMapUrls[url])
        .then(async (map) => (map ? { map, present: await presentSources(map, this.reader) } : null))
        .catch(() => null);
      this.maps.set(file, m);
    }
    return m;
  }

  /** A generated position (column known) in script `file` → display position. */
  async displayPoint(file: string, line: number, column: number): Promise<DisplayPos> {
    if (!file.startsWith('/')) return { file, line, column: column + 1 };
    const m = await this.mapOf(file);
    const found = m ? mapPoint(m.map, line, column) : null;
    if (found && m!.present.has(found.file)) return { file: found.file, line: found.line, column: found.column };
    return { file, line, column: column + 1 };
  }

  /**
   * A generated line (no column: a line tick) in script `file` → display line; 'ambiguous' when the
   * generated line holds many source lines (minified, tsx output).
   */
  async displayLine(file: string, line: number): Promise<DisplayPos | 'ambiguous'> {
    if (!file.startsWith('/')) return { file, line, column: null };
    const m = await this.mapOf(file);
    if (!m) return { file, line, column: null };
    const found = mapLine(m.map, line);
    if (found === 'ambiguous') return 'ambiguous';
    if (found && m.present.has(found.file)) return { file: found.file, line: found.line, column: null };
    return { file, line, column: null };
  }

  /** The display line of a model line entry (the model mapped it through the frame's own script). */
  entryDisplay(e: number): DisplayPos | 'ambiguous' {
    const { lines, functions } = this.model;
    if (lines.originalLine[e] === AMBIGUOUS_LINE) return 'ambiguous';
    if (lines.originalLine[e] > 0) return { file: lines.originalFile[e]!, line: lines.originalLine[e], column: null };
    return { file: functions[lines.func[e]].file, line: lines.line[e], column: null };
  }
}
