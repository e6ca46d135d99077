/**
 * Large payloads travel from a host to the webview in several messages: one `initBegin` (the encoded
 * header, see payload.ts) and then `initChunk`s holding slices of the binary blob or of the string
 * table. Each message stays small, so neither side builds one huge structured clone (VS Code copies a
 * message's buffers on both sides of its IPC) and the page can show progress. The webview puts the
 * pieces back with PayloadAssembler and decodes them exactly like the standalone report's data.
 *
 * Chunks carry their position, so order does not matter, duplicates are harmless, and a chunk of an
 * older payload (a webview reload while messages were in flight) is recognised by its id and dropped.
 * Every slice is a copy with its own buffer: VS Code transfers a typed array's whole underlying buffer,
 * so a view into a big blob would send the blob once per chunk.
 */
import { decodePayload, encodePayload, type EncodedHeader, type FlamePayload } from './payload';

/** Payloads above this size (typed arrays plus string characters) are split into chunks of it. */
export const DEFAULT_CHUNK_BYTES = 1 << 20;

export interface ChunkedBegin {
  /** Names this payload's chunks; fresh per split. */
  id: number;
  /** The encoded header with an empty string table: the strings come in chunks. */
  header: EncodedHeader;
  stringCount: number;
  /** Number of chunks that follow. */
  chunks: number;
}

export type PayloadChunk = { id: number; index: number } & (
  | { offset: number; bytes: Uint8Array }
  | { stringsFrom: number; strings: string[] }
);

let nextId = 1;

/** Bytes a payload occupies in a message: typed arrays, plus about one byte per string character. */
export function payloadBytes(p: FlamePayload): number {
  let bytes = 0;
  const f = p.functions;
  for (const a of [f.name, f.file, f.line, f.column, f.category, f.pkg, f.mapped, ...(f.inlinedOf ? [f.inlinedOf] : []), ...Object.values(f.extras ?? {})]) bytes += a.byteLength;
  bytes += p.frames.parent.byteLength + p.frames.func.byteLength + p.frames.selfUs.byteLength;
  if (p.timeline) bytes += p.timeline.frame.byteLength + p.timeline.startUs.byteLength;
  if (p.diff) bytes += p.diff.beforeSelfUs.byteLength;
  for (const s of p.strings) bytes += s.length + 8;
  return bytes;
}

/**
 * The payload as a begin message and its chunks, each at most about `chunkBytes`; null when the whole
 * payload fits in one message of that size (send it as it is).
 */
export function splitPayload(payload: FlamePayload, chunkBytes = DEFAULT_CHUNK_BYTES): { begin: ChunkedBegin; chunks: PayloadChunk[] } | null {
  const size = Math.max(64, Math.floor(chunkBytes));
  if (payloadBytes(payload) <= size) return null;
  const id = nextId++;
  const { header, binary } = encodePayload(payload, { exactTimeline: true });
  const chunks: PayloadChunk[] = [];
  for (let offset = 0; offset < binary.byteLength; offset += size) {
    chunks.push({ id, index: chunks.length, offset, bytes: binary.slice(offset, Math.min(binary.byteLength, offset + size)) });
  }
  const strings = header.strings;
  for (let from = 0; from < strings.length;) {
    let bytes = 0;
    let to = from;
    while (to < strings.length && (to === from || bytes + strings[to].length + 8 <= size)) bytes += strings[to++].length + 8;
    chunks.push({ id, index: chunks.length, stringsFrom: from, strings: strings.slice(from, to) });
    from = to;
  }
  return { begin: { id, header: { ...header, strings: [] }, stringCount: strings.length, chunks: chunks.length }, chunks };
}

/** Puts a chunked payload back together in the webview. */
export class PayloadAssembler {
  private current: {
    begin: ChunkedBegin;
    binary: Uint8Array;
    strings: string[];
    seen: Uint8Array;
    received: number;
  } | null = null;

  /** Start (or restart) assembling; a payload in progress is dropped. */
  begin(begin: ChunkedBegin): void {
    if (!Number.isInteger(begin.chunks) || begin.chunks < 0 || !Number.isInteger(begin.stringCount) || begin.stringCount < 0) throw new Error('Malformed flamegraph data (chunk counts)');
    // A fresh ArrayBuffer: decodePayload's views need 8-byte aligned sections, and so does offset 0.
    this.current = {
      begin,
      binary: new Uint8Array(begin.header.byteLength),
      strings: new Array<string>(begin.stringCount),
      seen: new Uint8Array(begin.chunks),
      received: 0,
    };
  }

  /** Progress of the payload being assembled, or null. */
  get progress(): { received: number; total: number } | null {
    return this.current && { received: this.current.received, total: this.current.begin.chunks };
  }

  /**
   * Add one chunk; returns the decoded payload when this was the last missing one, else null. Chunks of
   * another payload (an older id) are ignored; chunks that do not fit the announced sizes throw.
   */
  add(chunk: PayloadChunk): FlamePayload | null {
    const c = this.current;
    if (!c || chunk.id !== c.begin.id) return null;
    if (!Number.isInteger(chunk.index) || chunk.index < 0 || chunk.index >= c.seen.length) throw new Error('Malformed flamegraph data (chunk index)');
    if (c.seen[chunk.index]) return null;
    if ('bytes' in chunk) {
      if (!(chunk.bytes instanceof Uint8Array) || !Number.isInteger(chunk.offset) || chunk.offset < 0 || chunk.offset + chunk.bytes.byteLength > c.binary.byteLength) {
        throw new Error('Malformed flamegraph data (chunk bytes)');
      }
      c.binary.set(chunk.bytes, chunk.offset);
    } else {
      if (!Array.isArray(chunk.strings) || !Number.isInteger(chunk.stringsFrom) || chunk.stringsFrom < 0 || chunk.stringsFrom + chunk.strings.length > c.strings.length) {
        throw new Error('Malformed flamegraph data (chunk strings)');
      }
      for (let k = 0; k < chunk.strings.length; k++) c.strings[chunk.stringsFrom + k] = String(chunk.strings[k]);
    }
    c.seen[chunk.index] = 1;
    c.received++;
    if (c.received < c.seen.length) return null;
    this.current = null;
    for (let k = 0; k < c.strings.length; k++) if (c.strings[k] === undefined) throw new Error('Malformed flamegraph data (strings missing)');
    return decodePayload({ ...c.begin.header, strings: c.strings }, c.binary);
  }
}
