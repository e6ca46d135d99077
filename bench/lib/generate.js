'use strict';
// Deterministic generator of realistic .cpuprofile files for the benchmarks.
//
// "Realistic" means the shape of a `node --cpu-prof` file of a busy server: the JSON layout V8 writes
// (no whitespace, the same key order), a call tree of thousands to ~100k nodes whose callFrames mix user
// code, node_modules, node: internals and builtins, positionTicks on sampled nodes, and long
// `samples`/`timeDeltas` arrays (most of the bytes) with runs of the same node and ~100-1200 µs gaps.
// Same seed and size → byte-identical file, so cached files stay valid across runs.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Bump when the output format changes, so stale cache files are not reused. */
const GENERATOR_VERSION = 5;

function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['parse', 'handle', 'request', 'render', 'compute', 'hash', 'encode', 'decode', 'query', 'validate',
  'serialize', 'route', 'match', 'build', 'format', 'load', 'merge', 'visit', 'transform', 'emit', 'flush', 'read',
  'write', 'process', 'resolve', 'update', 'sort', 'filter', 'reduce', 'walk'];
const NOUNS = ['Body', 'Header', 'Row', 'Token', 'Node', 'Item', 'Chunk', 'User', 'Order', 'Template', 'Path',
  'Buffer', 'Record', 'Entry', 'Value', 'Key', 'Stream', 'Frame', 'Query', 'Schema'];
const PACKAGES = ['express', 'fastify', '@fastify/ajv-compiler', 'lodash', 'ajv', 'pino', 'undici', '@babel/core',
  'react-dom', 'mongodb', 'ioredis', 'zod', 'yaml', 'semver', 'debug', 'qs', 'body-parser', '@opentelemetry/api'];
const INTERNALS = ['node:internal/streams/readable', 'node:internal/http', 'node:_http_server', 'node:_http_outgoing',
  'node:internal/timers', 'node:events', 'node:buffer', 'node:internal/url', 'node:net', 'node:internal/process/task_queues',
  'node:internal/modules/cjs/loader', 'node:string_decoder', 'node:zlib', 'node:crypto'];
const NATIVES = ['JSON.parse', 'JSON.stringify', 'RegExp.prototype.exec', 'Array.prototype.sort', 'String.prototype.split',
  'Map.prototype.get', 'writev', 'writeUtf8String', '(anonymous)', 'structuredClone'];

/**
 * Write a profile of about `targetBytes` to `file`. `nodeCount` sets the call tree's size.
 * Returns { bytes, nodes, samples }.
 */
function generateProfile(file, { targetBytes, nodeCount, seed, sourcesDir }) {
  const rnd = mulberry32(seed);
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));

  // Functions: a pool shared by many call sites, as in real profiles.
  const fnCount = Math.max(200, Math.floor(nodeCount / 6));
  const functions = [];
  let scriptId = 100;
  const scripts = [];
  for (let s = 0; s < Math.max(20, Math.floor(fnCount / 12)); s++) {
    const r = rnd();
    let url;
    if (r < 0.4) url = `file://${sourcesDir || '/srv/app'}/src/${pick(WORDS)}/${pick(WORDS)}${pick(NOUNS)}${s}.js`;
    else if (r < 0.8) url = `file://${sourcesDir || '/srv/app'}/node_modules/${pick(PACKAGES)}/lib/${pick(WORDS)}${s}.js`;
    else url = pick(INTERNALS);
    scripts.push({ url, id: String(scriptId++) });
  }
  for (let f = 0; f < fnCount; f++) {
    if (rnd() < 0.1) {
      functions.push({ name: pick(NATIVES), url: '', scriptId: '0', line: -1, col: -1 });
    } else {
      const s = pick(scripts);
      functions.push({ name: rnd() < 0.08 ? '' : `${pick(WORDS)}${pick(NOUNS)}`, url: s.url, scriptId: s.id, line: int(0, 2500), col: int(0, 60) });
    }
  }

  // With sourcesDir, every function's `(` must be where a real source can put it: after its head.
  if (sourcesDir) {
    functions.forEach((f, i) => {
      if (!f.url.startsWith('file:')) return;
      f.head = f.name ? `function ${f.name}` : `exports.f${i} = function `;
      if (f.col < f.head.length) f.col = f.head.length + int(0, 20);
    });
  }

  // Call tree: ids are 1-based; 1 = (root); 2..4 are V8's special nodes.
  const parent = new Int32Array(nodeCount + 1);
  const fnOf = new Int32Array(nodeCount + 1);
  const depth = new Int32Array(nodeCount + 1);
  const children = Array.from({ length: nodeCount + 1 }, () => []);
  const special = ['(root)', '(program)', '(idle)', '(garbage collector)'];
  for (let id = 5; id <= nodeCount; id++) {
    // Prefer extending recent nodes (deep stacks), sometimes branch off an older one.
    let p;
    if (id === 5) p = 1;
    else if (rnd() < 0.75) p = Math.max(5, id - int(1, 12));
    else p = int(5, id - 1);
    if (depth[p] > 60) p = int(5, id - 1);
    parent[id] = p;
    depth[id] = depth[p] + 1;
    fnOf[id] = Math.floor(rnd() * fnCount);
    children[p].push(id);
  }
  children[1].unshift(2, 3, 4);
  parent[2] = parent[3] = parent[4] = 1;

  // Samples: skewed towards a hot set, in runs of the same node (a loop stays in one frame).
  const nodeBytes = nodeCount * 255;
  const sampleBytes = Math.max(1000, targetBytes - nodeBytes);
  const idDigits = String(nodeCount).length;
  const sampleCount = Math.floor(sampleBytes / (idDigits - 0.1 + 4.15));
  const samples = new Int32Array(sampleCount);
  const hits = new Int32Array(nodeCount + 1);
  const hot = new Int32Array(nodeCount - 1);
  for (let i = 0; i < hot.length; i++) hot[i] = i + 2;
  for (let i = hot.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    const t = hot[i];
    hot[i] = hot[j];
    hot[j] = t;
  }
  let current = 2;
  for (let i = 0; i < sampleCount; i++) {
    if (rnd() > 0.55) current = hot[Math.floor(hot.length * rnd() ** 3)];
    samples[i] = current;
    hits[current]++;
  }

  const fd = fs.openSync(file, 'w');
  let chunk = '';
  let bytes = 0;
  const out = (s) => {
    chunk += s;
    if (chunk.length > 1 << 20) {
      bytes += fs.writeSync(fd, chunk);
      chunk = '';
    }
  };
  out('{"nodes":[');
  for (let id = 1; id <= nodeCount; id++) {
    const isSpecial = id <= 4;
    const f = functions[fnOf[id]];
    const frame = isSpecial
      ? { functionName: special[id - 1], scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }
      : { functionName: f.name, scriptId: f.scriptId, url: f.url, lineNumber: f.line, columnNumber: f.col };
    let s = `${id > 1 ? ',' : ''}{"id":${id},"callFrame":${JSON.stringify(frame)},"hitCount":${hits[id]}`;
    if (children[id].length) s += `,"children":[${children[id].join(',')}]`;
    if (hits[id] > 0 && !isSpecial && frame.lineNumber >= 0) {
      // Split the hits over a few lines of the function body (1-based lines).
      const lines = Math.min(hits[id], int(1, 4));
      const ticks = [];
      let left = hits[id];
      for (let k = 0; k < lines; k++) {
        const t = k === lines - 1 ? left : Math.max(1, Math.floor(left * rnd()));
        left -= t;
        ticks.push(`{"line":${frame.lineNumber + 1 + int(0, 40)},"ticks":${t}}`);
        if (left === 0) break;
      }
      s += `,"positionTicks":[${ticks.join(',')}]`;
    }
    out(s + '}');
  }
  const startTime = 51234567890;
  const drnd = mulberry32(seed ^ 0x9e3779b9);
  let total = 0;
  const deltas = new Int32Array(sampleCount);
  for (let i = 0; i < sampleCount; i++) {
    const r = drnd();
    // Mostly the sampling interval with jitter; some deopt samples (tiny gaps) and some stalls.
    const d = r < 0.03 ? 3 + Math.floor(drnd() * 40) : r > 0.995 ? 2000 + Math.floor(drnd() * 9000) : 110 + Math.floor(drnd() * 1100);
    deltas[i] = d;
    total += d;
  }
  out(`],"startTime":${startTime},"endTime":${startTime + total + 500},"samples":[`);
  for (let i = 0; i < sampleCount; i += 4096) out((i ? ',' : '') + samples.subarray(i, i + 4096).join(','));
  out('],"timeDeltas":[');
  for (let i = 0; i < sampleCount; i += 4096) out((i ? ',' : '') + deltas.subarray(i, i + 4096).join(','));
  out(']}');
  bytes += fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  if (sourcesDir) writeSources(functions, fnOf, children, nodeCount);
  return { bytes, nodes: nodeCount, samples: sampleCount };
}

/**
 * The user scripts a generated profile names, as JavaScript that parses and puts every function where
 * the profile says (its `(` at the profile's line and column), each body calling the functions its
 * frames call in the profile — what attribution reads.
 */
function writeSources(functions, fnOf, children, nodeCount) {
  const calleesOf = new Map();
  for (let id = 5; id <= nodeCount; id++) {
    const f = fnOf[id];
    for (const c of children[id]) {
      const callee = functions[fnOf[c]];
      if (!callee.name) continue;
      let set = calleesOf.get(f);
      if (!set) calleesOf.set(f, (set = new Set()));
      if (set.size < 12) set.add(callee.name);
    }
  }
  const byScript = new Map();
  functions.forEach((f, index) => {
    if (!f.url.startsWith('file:')) return;
    let list = byScript.get(f.url);
    if (!list) byScript.set(f.url, (list = []));
    list.push({ ...f, index });
  });
  for (const [url, list] of byScript) {
    list.sort((a, b) => a.line - b.line);
    // Each function spans the 40 lines its ticks fall on (then blank lines up to the next one): the
    // size of a real hot function, not of the gap between two random declaration lines.
    const lines = [];
    let closeAt = -1;
    const fill = (until) => {
      while (lines.length < until) {
        if (closeAt >= 0 && lines.length === closeAt) { lines.push('}'); closeAt = -1; } else lines.push(closeAt >= 0 ? '  total += 1;' : '');
      }
    };
    for (const f of list) {
      if (f.line < lines.length) continue; // two functions on one line: the first one wins (the profile keeps both)
      fill(f.line);
      if (closeAt >= 0) { lines[lines.length - 1] = '}'; closeAt = -1; }
      lines.push(`${' '.repeat(f.col - f.head.length)}${f.head}(input) {`);
      for (const callee of calleesOf.get(f.index) ?? []) lines.push(`  total += ${callee}(input);`);
      closeAt = Math.max(lines.length, f.line + 42);
    }
    if (closeAt >= 0) { fill(closeAt); lines.push('}'); }
    for (let i = 0; i < 60; i++) lines.push('');
    const file = new URL(url).pathname;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
  }
}

/**
 * A cached profile of about `sizeMB` in os.tmpdir()/hotpath-bench, generated on first use.
 * Node count grows with size: ~4k nodes at 5 MB up to 100k at 200 MB.
 */
function cachedProfile(sizeMB, log = () => {}) {
  const dir = path.join(os.tmpdir(), 'hotpath-bench');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `profile-${sizeMB}mb-v${GENERATOR_VERSION}.cpuprofile`);
  if (fs.existsSync(file)) return file;
  const nodeCount = Math.round(Math.min(100_000, Math.max(3_000, sizeMB * 600)));
  log(`generating ${path.basename(file)} (${nodeCount} nodes)…`);
  const tmp = `${file}.${process.pid}.tmp`;
  generateProfile(tmp, { targetBytes: sizeMB * 1024 * 1024, nodeCount, seed: 1234 + sizeMB });
  fs.renameSync(tmp, file); // atomic: a killed run never leaves a half-written cache file
  return file;
}

/**
 * A cached profile of about `sizeMB` with its scripts on disk (`<dir>/app`), for suites that attribute
 * it (sources are read): generated on first use, shared by those suites.
 */
function cachedProfileWithSources(sizeMB, log = () => {}) {
  const dir = path.join(os.tmpdir(), 'hotpath-bench', `sources-${sizeMB}mb-v${GENERATOR_VERSION}`);
  const file = path.join(dir, 'profile.cpuprofile');
  if (!fs.existsSync(file)) {
    log(`generating ${sizeMB} MB profile with its sources in ${dir}…`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    generateProfile(`${file}.tmp`, { targetBytes: sizeMB * 1024 * 1024, nodeCount: Math.round(sizeMB * 600), seed: 1234 + sizeMB, sourcesDir: path.join(dir, 'app') });
    fs.renameSync(`${file}.tmp`, file); // the profile last: a killed run is generated again
  }
  return { file, dir };
}

module.exports = { generateProfile, cachedProfile, cachedProfileWithSources, mulberry32 };
