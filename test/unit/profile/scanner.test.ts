/**
 * The byte scanner must read exactly what JSON.parse reads (on the profile schema): real recorded
 * profiles, generated ones with every awkward spelling JSON allows, and small hand-written cases.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { FIXTURES, normalizeParsed, rawToPlain, scanText, seeded } from './helpers';
import { randomProfile, writeJson } from './generated';

const reference = (text: string) => normalizeParsed(JSON.parse(Buffer.from(text, 'utf8').toString('utf8')));

describe('profile scanner ≡ JSON.parse', () => {
  const fixtures = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.cpuprofile'));

  it('has recorded fixtures to compare', () => {
    assert.ok(fixtures.length >= 7, `only ${fixtures.length} fixtures`);
  });

  // Both node readers: the byte scanner alone, and the default (JSON.parse for small V8-layout node arrays).
  const modes = [
    { label: 'scanner only', options: { nativeNodes: false } },
    { label: 'default', options: {} },
  ];
  for (const { label, options } of modes) {
    for (const name of fixtures) {
      it(`reads recorded ${name} exactly like JSON.parse (${label})`, () => {
        const text = fs.readFileSync(`${FIXTURES}/${name}`, 'utf8');
        assert.deepEqual(rawToPlain(scanText(text, options)), reference(text));
      });
    }

    it(`reads a recorded profile re-serialized with indentation (JSON.stringify(p, null, 2)) (${label})`, () => {
      const text = JSON.stringify(JSON.parse(fs.readFileSync(`${FIXTURES}/deps.cpuprofile`, 'utf8')), null, 2);
      assert.deepEqual(rawToPlain(scanText(text, options)), reference(text));
    });

    it(`reads 300 generated profiles (messy spelling, shuffled keys, unknown keys) like JSON.parse (${label})`, () => {
      for (let seed = 1; seed <= 300; seed++) {
        const rnd = seeded(seed);
        const text = writeJson(randomProfile(rnd, 1 + Math.floor(rnd() * 40)), rnd, seed % 3 === 0 ? 'compact' : 'messy');
        assert.deepEqual(rawToPlain(scanText(text, options)), reference(text), `seed ${seed}`);
      }
    });
  }

  it('falls back from the JSON.parse path to the scanner for anything it does not take, with the scanner\'s errors', () => {
    const frame = '{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}';
    const tail = ',"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}';
    const cases = [
      `{"nodes":[{"id":1,"callFrame":${frame},"meta":{"x":[1],"startTime":2}}]${tail}`, // marker inside a node
      `{"nodes":[{"id":1,"callFrame":${frame},"positionTicks":[{"line":-1,"ticks":1}]}]${tail}`,
      `{"nodes":[{"id":1.5,"callFrame":${frame}}]${tail}`,
      `{"nodes":[{"id":1,"callFrame":${frame.replace('"(root)"', 'null')}}]${tail}`,
      `{"nodes":[{"id":1,"callFrame":${frame},"children":[2,]}]${tail}`,
      `{"nodes":[{"id":1,"callFrame":${frame},"hitCount":"3"}]${tail}`,
    ];
    for (const text of cases) {
      let scannerOnly: unknown;
      let withNative: unknown;
      try {
        scannerOnly = rawToPlain(scanText(text, { nativeNodes: false }));
      } catch (err) {
        scannerOnly = (err as Error).message;
      }
      try {
        withNative = rawToPlain(scanText(text));
      } catch (err) {
        withNative = (err as Error).message;
      }
      assert.deepEqual(withNative, scannerOnly, text);
    }
  });

  it('reads long arrays across fast-path chunk boundaries, growth and odd elements like JSON.parse', () => {
    const rnd = seeded(99);
    const count = 140_000;
    const samples: string[] = [];
    const deltas: string[] = [];
    for (let i = 0; i < count; i++) {
      samples.push(String(1 + (i % 3)));
      // The first ~64 KB hold long numbers, so the size estimate is far too small and the array grows;
      // odd spellings appear at random, including right at chunk boundaries (256, 256 + 65536, …).
      const boundary = i === 255 || i === 256 || i === 65_791 || i === 65_792;
      const r = rnd();
      const v = i < 8000 ? String(100_000_000 + i) : String(i % 10);
      deltas.push(boundary || r < 0.001 ? ` ${v}.0 ` : r < 0.002 ? `${v}e0` : r < 0.003 ? `-${v}` : r < 0.004 ? '1234567890' : v);
    }
    const frame = (name: string) => `{"functionName":"${name}","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}`;
    const text =
      `{"nodes":[{"id":1,"callFrame":${frame('(root)')},"children":[2,3]},{"id":2,"callFrame":${frame('a')}},{"id":3,"callFrame":${frame('b')}}],` +
      `"startTime":0,"endTime":1,"samples":[${samples.join(',')}],"timeDeltas":[${deltas.join(',')}]}`;
    const raw = scanText(text);
    assert.ok(raw.timeDeltas instanceof Int32Array);
    assert.deepEqual(rawToPlain(raw), reference(text));
  });

  it('keeps integer timeDeltas in an Int32Array and switches to Float64Array only when needed', () => {
    const base = '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],"startTime":0,"endTime":9,';
    assert.ok(scanText(`${base}"samples":[1,1],"timeDeltas":[1,2]}`).timeDeltas instanceof Int32Array);
    const floats = scanText(`${base}"samples":[1,1,1],"timeDeltas":[1,2.5,3e9]}`).timeDeltas;
    assert.ok(floats instanceof Float64Array);
    assert.deepEqual(Array.from(floats), [1, 2.5, 3e9]);
  });

  it('decodes escapes, surrogate pairs and raw UTF-8 in strings', () => {
    const name = 'q"\\/\b\f\n\r\t \u00e9 \ud83d\ude00 \u2028';
    const text =
      '{"nodes":[{"id":1,"callFrame":{"functionName":"q\\"\\\\\\/\\b\\f\\n\\r\\t \\u00E9 \\ud83d\\ude00 \u2028","scriptId":"0","url":"file:///caf\u00e9/\ud83d\ude00.js","lineNumber":-1,"columnNumber":-1}}],' +
      '"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}';
    const raw = scanText(text);
    assert.equal(raw.strings[raw.functionName[0]], name);
    assert.equal(raw.strings[raw.url[0]], 'file:///caf\u00e9/\ud83d\ude00.js');
    assert.deepEqual(rawToPlain(raw), reference(text));
  });

  it('reads numbers in every JSON spelling, including past 9 digits and in exponent form', () => {
    const text =
      '{"nodes":[{"id":1,"callFrame":{"functionName":"","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1}}],' +
      '"startTime":1234567890123456,"endTime":1.7E15,' +
      '"samples":[1,1e0,10e-1,1.0,1,1,1,1],' +
      '"timeDeltas":[-0,0,2147483647,-2147483648,1234567890,9876543210,12345678901234567890,5e-324]}';
    const raw = scanText(text);
    assert.deepEqual(Array.from(raw.samples), [1, 1, 1, 1, 1, 1, 1, 1]);
    assert.deepEqual(Array.from(raw.timeDeltas), [0, 0, 2147483647, -2147483648, 1234567890, 9876543210, 12345678901234567890, 5e-324]);
    assert.equal(raw.startTime, 1234567890123456);
    assert.equal(raw.endTime, 1.7e15);
    assert.equal(raw.strings[raw.scriptId[0]], '0', 'a numeric scriptId becomes its string');
  });

  it('skips unknown keys of any shape at every level (e.g. js-debug locationId, $vscode)', () => {
    const text =
      '{"$vscode":{"locations":[{"callFrame":{},"locations":[]}],"x":[true,false,null,-1.5e+2,"]}"]},' +
      '"nodes":[{"locationId":7,"id":1,"callFrame":{"codeType":"JS","functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},' +
      '"positionTicks":[{"line":3,"ticks":2,"startLocationId":1,"endLocationId":2}],"deoptReason":null,"hitCount":2}],' +
      '"title":"}{","startTime":0,"endTime":1,"samples":[1],"timeDeltas":[0]}';
    const raw = scanText(text);
    assert.deepEqual(rawToPlain(raw), reference(text));
    assert.deepEqual(Array.from(raw.tickLine), [3]);
    assert.ok(raw.vscode !== null && text.slice(raw.vscode.start, raw.vscode.end).startsWith('{"locations"'));
  });

  it('lets a repeated key replace the earlier value, as JSON.parse does', () => {
    const text =
      '{"nodes":[{"id":9,"callFrame":{"functionName":"a","scriptId":"0","url":"u","lineNumber":1,"columnNumber":1}}],' +
      '"nodes":[{"id":1,"children":[5],"children":[],"callFrame":{"functionName":"x","scriptId":"1","url":"v","lineNumber":3,"columnNumber":4},' +
      '"callFrame":{"functionName":"(root)","scriptId":"0","url":""}}],' +
      '"startTime":0,"endTime":1,"samples":[9],"timeDeltas":[1],"samples":[1]}';
    const raw = scanText(text);
    assert.deepEqual(rawToPlain(raw), reference(text));
  });
});
