/**
 * Bad input never crashes or hangs: every problem is a HotpathError whose message names the file, says
 * what is wrong and what to do.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ErrorCode, HotpathError } from '../../../src/core/common/errors';
import { buildProfileModel, loadProfile } from '../../../src/core/profile';
import { assertProfileInvalid, readFixture, seeded } from './helpers';

const SOURCE = 'bad.cpuprofile';
const build = (input: string | Uint8Array) => () => buildProfileModel(input, { sourceName: SOURCE });

const frame = (name: string) => `{"functionName":"${name}","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}`;
/** A small valid profile; `parts` overrides pieces of it. */
function profile(parts: { nodes?: string; samples?: string; timeDeltas?: string; extra?: string } = {}): string {
  const nodes = parts.nodes ?? `[{"id":1,"callFrame":${frame('(root)')},"children":[2]},{"id":2,"callFrame":${frame('work')},"hitCount":2}]`;
  return `{"nodes":${nodes},"startTime":100,"endTime":200,"samples":${parts.samples ?? '[2,2]'},"timeDeltas":${parts.timeDeltas ?? '[10,10]'}${parts.extra ?? ''}}`;
}

describe('profile errors: files that are missing or not profiles', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-profile-test-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function loadError(file: string): Promise<HotpathError> {
    try {
      await loadProfile(file, { sourceMaps: false });
    } catch (err) {
      assert.ok(err instanceof HotpathError, String(err));
      return err;
    }
    assert.fail('loadProfile did not throw');
  }

  it('a missing file is ProfileNotFound and names the path', async () => {
    const file = path.join(dir, 'nope.cpuprofile');
    const err = await loadError(file);
    assert.equal(err.code, ErrorCode.ProfileNotFound);
    assert.match(err.message, new RegExp(`${file.replace(/[.\\/]/g, '\\$&')}: the file does not exist`));
  });

  it('a directory is ProfileNotFound', async () => {
    const err = await loadError(dir);
    assert.equal(err.code, ErrorCode.ProfileNotFound);
    assert.match(err.message, /is a directory/);
  });

  it('a FIFO is refused without opening it (opening would block until a writer appears)', async function () {
    if (process.platform === 'win32') this.skip();
    const fifo = path.join(dir, 'pipe.cpuprofile');
    execFileSync('mkfifo', [fifo]);
    const err = await loadError(fifo);
    assert.equal(err.code, ErrorCode.ProfileNotFound);
    assert.match(err.message, /not a regular file/);
  });

  it('an empty file is ProfileInvalid naming the file and what to do', async () => {
    const file = path.join(dir, 'empty.cpuprofile');
    fs.writeFileSync(file, '');
    const err = await loadError(file);
    assert.equal(err.code, ErrorCode.ProfileInvalid);
    assert.match(err.message, /empty\.cpuprofile is empty\..*re-record the profile/);
  });

  it('a truncated file on disk says where it ended and to re-record', async () => {
    const file = path.join(dir, 'cut.cpuprofile');
    const text = readFixture('cpu-hot');
    fs.writeFileSync(file, text.slice(0, 1234));
    const err = await loadError(file);
    assert.equal(err.code, ErrorCode.ProfileInvalid);
    assert.match(err.message, /cut\.cpuprofile is truncated \(ended at byte 1234 (inside|before) .+\)\. The file was probably cut off while being written; re-record the profile\./);
  });

  it('whitespace only counts as empty', () => {
    assertProfileInvalid(build(' \n\t\r\n '), /bad\.cpuprofile is empty/);
  });
});

describe('profile errors: truncation anywhere', () => {
  it('every prefix of a small profile is reported as truncated at its length', () => {
    const text = profile({ extra: ',"x":[true,null,"a\\u00e9\\n",-1.5e3,{"k":[]}]' });
    for (let cut = 1; cut < text.length; cut++) {
      const err = assertProfileInvalid(build(text.slice(0, cut)), /is truncated/);
      assert.match(err.message, new RegExp(`ended at byte ${cut} (inside|before|in|after) `), `cut at ${cut}: ${err.message}`);
    }
  });

  it('prefixes of a recorded profile are reported as truncated, naming the array or object they end in', () => {
    const text = readFixture('deps');
    const inside = new Set<string>();
    for (let cut = 1; cut < text.length; cut += 997) {
      const err = assertProfileInvalid(build(text.slice(0, cut)), new RegExp(`is truncated \\(ended at byte ${cut} (inside|before|after|in) [^)]+\\)`));
      inside.add(/ended at byte \d+ ([^)]+)\)/.exec(err.message)![1]);
    }
    assert.ok([...inside].some((s) => s.includes('"nodes"') || s.includes('node object') || s.includes('callFrame')), [...inside].join('; '));
    assert.ok([...inside].some((s) => s.includes('"samples" array')), [...inside].join('; '));
    assert.ok([...inside].some((s) => s.includes('"timeDeltas" array')), [...inside].join('; '));
  });
});

describe('profile errors: not JSON', () => {
  const cases: [string, string | Uint8Array, RegExp][] = [
    ['plain text', 'hello world', /is not valid JSON: unexpected 'h' at the start of the file at byte 0 \(line 1, column 1\)/],
    ['HTML', '<!doctype html><html></html>', /is not valid JSON: unexpected '<'/],
    ['binary', new Uint8Array([0x00, 0x01, 0xff, 0xfe]), /is not valid JSON: unexpected byte 0x00/],
    ['gzip', new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00]), /gzip-compressed.*Decompress it/],
    ['trailing garbage', `${profile()} trailing`, /unexpected 't' after the end of the JSON document/],
    ['trailing comma', profile({ samples: '[2,2,]' }), /unexpected '\]' inside the "samples" array/],
    ['leading zero', profile({ timeDeltas: '[10,010]' }), /unexpected '1' inside the "timeDeltas" array/],
    ['bare minus', profile({ timeDeltas: '[10,-]' }), /unexpected '\]'/],
    ['missing fraction digits', profile({ timeDeltas: '[10,1.]' }), /unexpected '\]'/],
    ['NaN', profile({ timeDeltas: '[10,NaN]' }), /unexpected 'N'/],
    ['single quotes', "{'nodes':[]}", /unexpected '''/],
    ['raw control character in a string', profile({ extra: ',"k":"a\tb"' }), /unescaped control character byte 0x09 in a string/],
    ['bad escape', profile({ extra: ',"k":"\\x41"' }), /unexpected 'x' after a backslash inside a string/],
    ['short \\u escape', profile({ extra: ',"k":"\\u12G4"' }), /unexpected 'G' in a \\u escape/],
    ['bad literal', profile({ extra: ',"k":tru}' }), /unexpected '}'/],
    ['missing colon', '{"nodes" []}', /unexpected '\[' inside the top-level object/],
    ['line and column of the error', '{\n  "nodes": [\n    {"id": 1,, }\n  ]\n}', /unexpected ',' inside a node object at byte 28 \(line 3, column 14\)/],
  ];
  for (const [name, input, pattern] of cases) {
    it(`${name} → ProfileInvalid`, () => {
      assertProfileInvalid(build(input), /^bad\.cpuprofile /, pattern, /re-record|Decompress/);
    });
  }
});

describe('profile errors: JSON that is not a CPU profile', () => {
  const hint = /Open a \.cpuprofile written by `node --cpu-prof`/;
  const cases: [string, string, RegExp, RegExp?][] = [
    ['a JSON array (trace events)', '[{"ph":"X"}]', /it is a JSON array, not an object \(this looks like a Chrome performance trace/, /Performance panel/],
    ['a JSON number', '42', /it is a number, not a JSON object/, hint],
    ['a trace object', '{"traceEvents":[]}', /Chrome performance trace \("traceEvents"\)/, /Performance panel/],
    ['the legacy head format', '{"head":{"children":[]},"startTime":1,"endTime":2,"samples":[],"timestamps":[]}', /legacy format with a nested "head" tree/, /save it again/],
    ['an empty object', '{}', /it has no "nodes" array/, hint],
    ['nodes not an array', '{"nodes":{}}', /"nodes" is an object, expected an array/, hint],
    ['a node that is not an object', profile({ nodes: '[1]' }), /nodes\[0\] is a number, expected an object/, hint],
    ['no samples', '{"nodes":[],"startTime":0,"endTime":1,"timeDeltas":[]}', /it has no "samples" array/, hint],
    ['no timeDeltas', '{"nodes":[],"startTime":0,"endTime":1,"samples":[]}', /it has "samples" but no "timeDeltas" array/, hint],
    ['length mismatch', profile({ timeDeltas: '[10]' }), /"samples" has 2 entries but "timeDeltas" has 1; they must be the same length/, hint],
    ['no startTime', '{"nodes":[],"endTime":1,"samples":[],"timeDeltas":[]}', /it has no "startTime"/, hint],
    ['empty nodes', '{"nodes":[],"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}', /"nodes" is empty/, hint],
    ['a node without id', profile({ nodes: `[{"callFrame":${frame('(root)')}}]` }), /nodes\[0\] has no "id"/, hint],
    ['a node without callFrame', profile({ nodes: '[{"id":1}]' }), /nodes\[0\] \(id 1\) has no "callFrame"/, hint],
    ['a non-integer id', profile({ nodes: `[{"id":1.5,"callFrame":${frame('(root)')}}]` }), /nodes\[0\]\.id is 1\.5, expected an integer/, hint],
    ['a string hitCount', profile({ nodes: `[{"id":1,"callFrame":${frame('(root)')},"hitCount":"2"}]` }), /nodes\[0\]\.hitCount is a string, expected a number/, hint],
    ['a non-integer sample', profile({ samples: '[2,2.5]' }), /"samples"\[1\] is 2\.5, expected an integer node id/, hint],
    ['a dangling child id', profile({ nodes: `[{"id":1,"callFrame":${frame('(root)')},"children":[2,99]},{"id":2,"callFrame":${frame('w')}}]` }), /node 1 lists child 99, which is not in "nodes"/, hint],
    ['a sample of an unknown node', profile({ samples: '[2,7]' }), /samples\[1\] refers to node id 7, which is not in "nodes"/, hint],
    ['duplicate ids', profile({ nodes: `[{"id":1,"callFrame":${frame('(root)')}},{"id":1,"callFrame":${frame('w')}}]` }), /node id 1 appears more than once/, hint],
    ['a node with two parents', profile({ nodes: `[{"id":1,"callFrame":${frame('(root)')},"children":[2,3]},{"id":2,"callFrame":${frame('a')},"children":[3]},{"id":3,"callFrame":${frame('b')}}]` }), /node 3 is a child of both node 1 and node 2/, hint],
    ['two roots', profile({ nodes: `[{"id":1,"callFrame":${frame('(root)')}},{"id":2,"callFrame":${frame('w')}}]` }), /more than one root node \(nodes 1 and 2 have no parent\)/, hint],
    ['a cycle', profile({ nodes: `[{"id":1,"callFrame":${frame('(root)')},"children":[2]},{"id":2,"callFrame":${frame('a')},"children":[1]}]` }), /no root: every node has a parent, so the tree contains a cycle/, hint],
    ['a cycle beside the root', profile({ nodes: `[{"id":1,"callFrame":${frame('(root)')}},{"id":2,"callFrame":${frame('a')},"children":[3]},{"id":3,"callFrame":${frame('b')},"children":[2]}]`, samples: '[1,1]' }), /2 node\(s\) are not reachable from the root: the call tree contains a cycle/, hint],
  ];
  for (const [name, input, what, todo] of cases) {
    it(`${name} → ProfileInvalid`, () => {
      assertProfileInvalid(build(input), /^bad\.cpuprofile is not a valid CPU profile: /, what, ...(todo ? [todo] : []));
    });
  }
});

describe('profile errors: robustness', () => {
  it('skips 200,000 levels of nesting in an unknown key without overflowing the stack', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const model = buildProfileModel(profile({ extra: `,"deep":${deep}` }));
    assert.equal(model.sampleCount, 2);
    assertProfileInvalid(build(profile({ extra: `,"deep":${'['.repeat(200_000)}` }).slice(0, -1)), /truncated \(ended at byte \d+ inside an array\)/);
  });

  it('500 random corruptions of a profile give either JSON.parse\'s result or ProfileInvalid, never a crash', () => {
    const rnd = seeded(7);
    const text = profile({ extra: ',"meta":{"a":[1,2.5e-3,"x\\"y"],"b":null}' });
    const alphabet = '{}[]":,0123456789-.eE+ \\ntfnu"x';
    let accepted = 0;
    for (let i = 0; i < 500; i++) {
      const bytes = Buffer.from(text);
      const at = Math.floor(rnd() * bytes.length);
      const mutated =
        i % 3 === 0
          ? Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)])
          : i % 3 === 1
            ? Buffer.concat([bytes.subarray(0, at), Buffer.from(alphabet[Math.floor(rnd() * alphabet.length)]), bytes.subarray(at)])
            : Buffer.from(bytes.map((b, k) => (k === at ? alphabet.charCodeAt(Math.floor(rnd() * alphabet.length)) : b)));
      let jsonOk = true;
      try {
        JSON.parse(mutated.toString('utf8'));
      } catch {
        jsonOk = false;
      }
      try {
        buildProfileModel(mutated);
        assert.ok(jsonOk, `accepted invalid JSON: ${mutated.toString()}`);
        accepted++;
      } catch (err) {
        assert.ok(err instanceof HotpathError && err.code === ErrorCode.ProfileInvalid, `${String(err)} for ${mutated.toString()}`);
      }
    }
    assert.ok(accepted > 0, 'some mutations (e.g. digits in numbers) keep the profile valid');
  });
});
