/**
 * Large payloads in several host messages: initMessages splits, PayloadAssembler puts them back, and
 * the result is the payload itself (every typed array, the strings, the exact flame-chart timeline).
 */
import * as assert from 'node:assert/strict';
import { loadProfile } from '../../../src/core/profile';
import { buildDiffPayload, buildFlamePayload } from '../../../src/core/flame';
import { DEFAULT_CHUNK_BYTES, PayloadAssembler, payloadBytes, splitPayload, type PayloadChunk } from '../../../src/shared/flame/chunks';
import type { FlamePayload } from '../../../src/shared/flame/payload';
import { type HostMessage, initMessages, isHostMessage } from '../../../src/shared/protocol';
import { fixture } from '../profile/helpers';

const load = (name: string) => loadProfile(fixture(name), { sourceMaps: false });

/** Feed messages as the webview's host does; returns the assembled payload and the init's flags. */
function reassemble(messages: HostMessage[]): { payload: FlamePayload; canOpenSource: boolean; state: unknown } {
  const assembler = new PayloadAssembler();
  let result: { payload: FlamePayload; canOpenSource: boolean; state: unknown } | undefined;
  let flags: { canOpenSource: boolean; state: unknown } | undefined;
  for (const m of messages) {
    assert.ok(isHostMessage(m));
    if (m.type === 'init') return { payload: m.payload, canOpenSource: m.canOpenSource, state: m.state };
    if (m.type === 'initBegin') {
      assembler.begin(m);
      flags = { canOpenSource: m.canOpenSource, state: m.state };
    } else if (m.type === 'initChunk') {
      assert.equal(result, undefined, 'nothing arrives after the last chunk');
      const p = assembler.add(m);
      if (p) result = { payload: p, ...flags! };
    }
  }
  assert.ok(result, 'the payload was completed');
  return result;
}

/** The chunks' typed arrays must own their buffers (VS Code sends a view's whole underlying buffer). */
function assertOwnBuffers(messages: HostMessage[]): void {
  for (const m of messages) {
    if (m.type === 'initChunk' && 'bytes' in m) assert.equal(m.bytes.byteLength, m.bytes.buffer.byteLength);
  }
}

async function extrasPayload(): Promise<FlamePayload> {
  const p = buildDiffPayload(await load('cpu-hot'), await load('deps'));
  const n = p.functions.count;
  p.functions.extras = { tier: Uint8Array.from({ length: n }, (_, i) => i % 5), deopts: Uint8Array.from({ length: n }, (_, i) => (i * 7) % 256) };
  return p;
}

describe('flame: chunked host messages', () => {
  it('a payload within the chunk size is one init message carrying the payload itself', async () => {
    const p = buildFlamePayload(await load('cpu-hot'));
    assert.ok(payloadBytes(p) < DEFAULT_CHUNK_BYTES, 'the fixture is small');
    const messages = initMessages(p, true, { color: 'category' });
    assert.equal(messages.length, 1);
    assert.deepEqual(messages[0], { type: 'init', payload: p, canOpenSource: true, state: { color: 'category' } });
    assert.equal(splitPayload(p), null);
  });

  for (const parts of [200, 40, 3]) {
    it(`forced into about ${parts} chunks: reassembled to the same payload (diff, timeline, extras)`, async () => {
      const p = await extrasPayload();
      const chunkBytes = Math.ceil(payloadBytes(p) / parts);
      const messages = initMessages(p, false, { view: 'sandwich' }, { chunkBytes });
      assertOwnBuffers(messages);
      const begin = messages[0];
      assert.equal(begin.type, 'initBegin');
      const chunks = messages.filter((m) => m.type === 'initChunk');
      assert.equal(begin.type === 'initBegin' && begin.chunks, chunks.length);
      assert.ok(chunks.length >= parts / 2, `${chunks.length} chunks`);
      for (const c of chunks) {
        if ('bytes' in c) assert.ok(c.bytes.byteLength <= chunkBytes);
      }
      const back = reassemble(messages);
      assert.equal(back.canOpenSource, false);
      assert.deepEqual(back.state, { view: 'sandwich' });
      assert.deepEqual(back.payload, p);
    });
  }

  it('order does not matter; duplicates and chunks of an older payload are ignored', async () => {
    const p = await extrasPayload();
    const older = splitPayload(p, 1000)!;
    const split = splitPayload(p, 1000)!;
    assert.notEqual(older.begin.id, split.begin.id);
    const assembler = new PayloadAssembler();
    assembler.begin(older.begin);
    assembler.add(older.chunks[0]);
    // A reload: the new payload starts over; the old payload's remaining chunks still arrive.
    assembler.begin(split.begin);
    const shuffled: PayloadChunk[] = [...split.chunks].reverse();
    shuffled.splice(3, 0, split.chunks[5], ...older.chunks.slice(1));
    let out: FlamePayload | null = null;
    for (const c of shuffled) {
      assert.equal(out, null, 'complete only after the last missing chunk');
      out = assembler.add(c);
      if (!out) assert.ok(assembler.progress!.received <= split.chunks.length);
    }
    assert.deepEqual(out, p);
    assert.equal(assembler.progress, null);
  });

  it('chunks that do not fit what initBegin announced are refused', async () => {
    const p = await extrasPayload();
    const split = splitPayload(p, 1000)!;
    const assembler = new PayloadAssembler();
    assembler.begin(split.begin);
    const bytes = split.chunks.find((c) => 'bytes' in c)!;
    assert.throws(() => assembler.add({ ...bytes, offset: split.begin.header.byteLength } as PayloadChunk), /chunk bytes/);
    assert.throws(() => assembler.add({ ...bytes, index: split.chunks.length } as PayloadChunk), /chunk index/);
    const strings = split.chunks.find((c) => 'strings' in c)!;
    assert.throws(() => assembler.add({ ...strings, stringsFrom: split.begin.stringCount } as PayloadChunk), /chunk strings/);
  });

  it('the webview guard knows the new message types', () => {
    for (const type of ['init', 'initBegin', 'initChunk', 'focus']) assert.ok(isHostMessage({ type }));
    for (const value of [null, 'init', { type: 'ready' }, { type: 'openSource' }, {}]) assert.ok(!isHostMessage(value));
  });
});
