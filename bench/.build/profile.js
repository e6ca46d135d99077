"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// src/core/profile/index.ts
var index_exports = {};
__export(index_exports, {
  applySourceMaps: () => applySourceMaps,
  buildProfileModel: () => buildProfileModel,
  classify: () => classify,
  displayName: () => displayName,
  displayPosition: () => displayPosition,
  loadProfile: () => loadProfile,
  packageName: () => packageName,
  rankHotspots: () => rankHotspots,
  rankLines: () => rankLines
});
module.exports = __toCommonJS(index_exports);

// src/core/profile/diagnostics.ts
var LATE_START_SCRIPTS = /* @__PURE__ */ new Set(["node:internal/modules/cjs/loader", "node:internal/timers", "node:internal/modules/run_main"]);
function profileWarnings(model) {
  const warnings = [];
  const busyUs = model.durationUs - model.idleUs;
  if (model.sampleCount === 0 || model.durationUs <= 0) {
    warnings.push({
      code: "PROFILE_EMPTY",
      message: "The profile holds no sampled time: the program ended (or profiling stopped) before the first sample. Profile a longer run."
    });
    return warnings;
  }
  const { lines, functions } = model;
  for (let e = 0; e < lines.count; e++) {
    const info = functions[lines.func[e]];
    if (!LATE_START_SCRIPTS.has(info.url) || lines.selfUs[e] < busyUs * 0.5) continue;
    warnings.push({
      code: "PROFILE_LATE_START",
      message: `${Math.round(lines.selfUs[e] / busyUs * 100)}% of the busy time is charged to ${info.url} line ${lines.line[e]}. This happens when profiling starts while a long loop is already running in optimized code: its samples go to the caller. Start profiling before the workload (e.g. launch with profiling on) for correct attribution.`
    });
    break;
  }
  return warnings;
}

// src/core/profile/categories.ts
var import_node_url = require("node:url");
var SPECIAL = {
  "(root)": "root",
  "(program)": "program",
  "(idle)": "idle",
  "(garbage collector)": "gc"
};
function classify(functionName, url) {
  if (url === "") {
    const special = SPECIAL[functionName];
    return { category: special ?? "native", package: null, file: "" };
  }
  if (url.startsWith("node:") || isNodeInternalPath(url)) return { category: "node", package: null, file: url };
  const file = urlToFile(url);
  if (file.replace(/\\/g, "/").includes("/node_modules/")) return { category: "dependency", package: packageName(file), file };
  if (isAbsolutePath(file) || /^[a-z][a-z0-9+.-]*:/i.test(url)) return { category: "user", package: null, file };
  return { category: /^native /.test(url) ? "native" : "user", package: null, file };
}
function urlToFile(url) {
  if (!url.startsWith("file:")) return url;
  try {
    return (0, import_node_url.fileURLToPath)(url);
  } catch {
    return url;
  }
}
function packageName(file) {
  const normalized = file.replace(/\\/g, "/");
  const marker = "/node_modules/";
  const at = normalized.lastIndexOf(marker);
  if (at < 0) return null;
  const rest = normalized.slice(at + marker.length).split("/");
  if (rest[0] === "" || rest[0] === void 0) return null;
  if (rest[0].startsWith("@")) return rest.length > 1 && rest[1] !== "" ? `${rest[0]}/${rest[1]}` : null;
  return rest[0].startsWith(".") ? null : rest[0];
}
function isAbsolutePath(file) {
  return file.startsWith("/") || /^[a-zA-Z]:[\\/]/.test(file) || file.startsWith("\\\\");
}
function isNodeInternalPath(url) {
  if (url.startsWith("internal/")) return true;
  return /^_?[a-z_]+(\/[a-z_]+)*\.js$/.test(url);
}

// src/core/profile/functions.ts
function buildFunctions(raw, tree) {
  const n = raw.nodeCount;
  const strings = raw.strings;
  const nodeFunction = new Int32Array(n);
  const functions = [];
  const { functionName, url, lineNumber, columnNumber } = raw;
  let size = 1024;
  while (size < n * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(-1);
  const firstNode = [];
  for (let i = 0; i < n; i++) {
    const a = functionName[i];
    const b = url[i];
    const c = lineNumber[i];
    const d = columnNumber[i];
    let h = Math.imul(a, 2654435761) ^ Math.imul(b, 2246822519) ^ Math.imul(c, 3266489917) ^ Math.imul(d, 668265263);
    h ^= h >>> 15;
    let slot = h & mask;
    let f = -1;
    for (; ; ) {
      const candidate = slots[slot];
      if (candidate < 0) break;
      const j = firstNode[candidate];
      if (functionName[j] === a && url[j] === b && lineNumber[j] === c && columnNumber[j] === d) {
        f = candidate;
        break;
      }
      slot = slot + 1 & mask;
    }
    if (f < 0) {
      f = functions.length;
      slots[slot] = f;
      firstNode.push(i);
      functions.push(describeFunction(raw, i));
    } else if (raw.deoptReason[i] >= 0 && functions[f].deoptReason === void 0) {
      functions[f].deoptReason = strings[raw.deoptReason[i]];
    }
    nodeFunction[i] = f;
  }
  const selfUs = new Float64Array(functions.length);
  for (let i = 0; i < n; i++) selfUs[nodeFunction[i]] += tree.selfUs[i];
  const totalUs = new Float64Array(functions.length);
  const onPath = new Int32Array(functions.length);
  const path3 = new Int32Array(n);
  let pathLength = 0;
  const { preorder, depth } = tree;
  for (let k = 0; k < n; k++) {
    const v = preorder[k];
    while (pathLength > depth[v]) onPath[nodeFunction[path3[--pathLength]]]--;
    const f = nodeFunction[v];
    if (onPath[f] === 0) totalUs[f] += tree.totalUs[v];
    onPath[f]++;
    path3[pathLength++] = v;
  }
  return { functions, nodeFunction, selfUs, totalUs };
}
function describeFunction(raw, i) {
  const strings = raw.strings;
  const name = strings[raw.functionName[i]];
  const url = strings[raw.url[i]];
  const line = raw.lineNumber[i];
  const column = raw.columnNumber[i];
  const { category, package: pkg, file } = classify(name, url);
  const info = {
    name,
    url,
    scriptId: strings[raw.scriptId[i]],
    file,
    // callFrame positions are 0-based; everything we output is 1-based.
    line: line >= 0 ? line + 1 : null,
    column: line >= 0 && column >= 0 ? column + 1 : null,
    category,
    package: pkg
  };
  if (raw.deoptReason[i] >= 0) info.deoptReason = strings[raw.deoptReason[i]];
  return info;
}

// src/core/profile/jsDebug.ts
function parseJsDebugAnnotations(json) {
  let value;
  try {
    value = JSON.parse(json);
  } catch {
    return {};
  }
  if (typeof value !== "object" || value === null) return {};
  const annotations = value;
  const rootPath = typeof annotations.rootPath === "string" ? annotations.rootPath : void 0;
  if (!Array.isArray(annotations.locations)) return { rootPath };
  const byPosition = /* @__PURE__ */ new Map();
  for (const entry of annotations.locations) {
    if (typeof entry !== "object" || entry === null) continue;
    const { callFrame, locations } = entry;
    if (!callFrame || !Array.isArray(locations)) continue;
    const url = callFrame.url;
    if (typeof url !== "string" || typeof callFrame.lineNumber !== "number") continue;
    const best = pickLocation(locations, urlToFile(url), rootPath);
    if (best) byPosition.set(positionKey(url, callFrame.lineNumber, Number(callFrame.columnNumber ?? 0)), best);
  }
  return { rootPath, locations: { byPosition } };
}
function positionKey(url, lineNumber, columnNumber) {
  return `${url}
${lineNumber}
${columnNumber}`;
}
function pickLocation(candidates, scriptFile, rootPath) {
  let fallback;
  for (const c of candidates) {
    const path3 = c?.source?.path;
    if (typeof path3 !== "string" || path3 === scriptFile || typeof c.lineNumber !== "number") continue;
    const found2 = { file: path3, line: c.lineNumber, column: typeof c.columnNumber === "number" ? c.columnNumber : 1 };
    if (!rootPath || path3.startsWith(rootPath)) return found2;
    fallback ??= found2;
  }
  return fallback;
}

// src/core/profile/growable.ts
var Int32List = class {
  data;
  length = 0;
  constructor(capacity = 64) {
    this.data = new Int32Array(Math.max(4, capacity));
  }
  push(value) {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }
  grow(minCapacity) {
    const next = new Int32Array(Math.max(minCapacity, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  view() {
    return this.data.subarray(0, this.length);
  }
};
var Float64List = class {
  data;
  length = 0;
  constructor(capacity = 64) {
    this.data = new Float64Array(Math.max(4, capacity));
  }
  push(value) {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
  view() {
    return this.data.subarray(0, this.length);
  }
};

// src/core/profile/units.ts
function roundMs(us) {
  return Math.round(us / 10) / 100;
}
function roundPct(part, whole) {
  return whole > 0 ? Math.round(part / whole * 1e4) / 100 : 0;
}

// src/core/profile/lines.ts
function buildLineTable(raw, tree, table) {
  const entryOf = new Array(table.functions.length);
  const func = new Int32List(1024);
  const line = new Int32List(1024);
  const selfUs = new Float64List(1024);
  const { tickStart, tickCountOf, tickLine, tickCount, hitCount } = raw;
  for (let v = 0; v < raw.nodeCount; v++) {
    const count2 = tickCountOf[v];
    const self = tree.selfUs[v];
    if (count2 === 0 || self <= 0) continue;
    const start = tickStart[v];
    let ticks = 0;
    for (let k = start; k < start + count2; k++) ticks += tickCount[k];
    const denominator = Math.max(hitCount[v], ticks);
    if (denominator <= 0) continue;
    const f = table.nodeFunction[v];
    let lineEntries = entryOf[f];
    if (lineEntries === void 0) entryOf[f] = lineEntries = /* @__PURE__ */ new Map();
    for (let k = start; k < start + count2; k++) {
      const l = tickLine[k];
      if (l < 0 || tickCount[k] === 0) continue;
      let e = lineEntries.get(l);
      if (e === void 0) {
        e = func.length;
        lineEntries.set(l, e);
        func.push(f);
        line.push(l);
        selfUs.push(0);
      }
      selfUs.data[e] += self * tickCount[k] / denominator;
    }
  }
  const count = func.length;
  const maybeInlined = new Uint8Array(count);
  for (let e = 0; e < count; e++) {
    const decl = table.functions[func.data[e]].line;
    if (decl !== null && line.data[e] < decl) maybeInlined[e] = 1;
  }
  return {
    count,
    func: func.view(),
    line: line.view(),
    selfUs: selfUs.view(),
    maybeInlined,
    originalFile: new Array(count).fill(void 0),
    originalLine: new Int32Array(count)
  };
}
function rankLines(model, options = {}) {
  const limit = options.limit ?? 20;
  const { lines, functions } = model;
  const rows = /* @__PURE__ */ new Map();
  for (let e = 0; e < lines.count; e++) {
    const f = lines.func[e];
    const info = functions[f];
    if (info.category !== "user" && info.category !== "dependency") continue;
    const mapped = lines.originalLine[e] > 0;
    const file = mapped ? lines.originalFile[e] : info.file;
    const line = mapped ? lines.originalLine[e] : lines.line[e];
    const inlined = lines.maybeInlined[e] === 1;
    const key = `${inlined ? 1 : 0}
${line}
${file}`;
    let row = rows.get(key);
    if (row === void 0) {
      row = { file, line, us: 0, maybeInlined: inlined, byFunction: /* @__PURE__ */ new Map() };
      rows.set(key, row);
    }
    row.us += lines.selfUs[e];
    row.byFunction.set(f, (row.byFunction.get(f) ?? 0) + lines.selfUs[e]);
  }
  const ranked = [...rows.values()].sort((a, b) => b.us - a.us || a.file.localeCompare(b.file) || a.line - b.line);
  return ranked.slice(0, limit).map((row) => {
    let best = -1;
    let bestUs = -1;
    for (const [f, us] of row.byFunction) {
      if (us > bestUs) {
        best = f;
        bestUs = us;
      }
    }
    return {
      file: row.file,
      line: row.line,
      selfMs: roundMs(row.us),
      selfPct: roundPct(row.us, model.durationUs),
      function: functions[best].name || "(anonymous)",
      maybeInlined: row.maybeInlined
    };
  });
}

// src/core/common/errors.ts
var HotpathError = class extends Error {
  constructor(code, message, details) {
    super(message);
    this.code = code;
    this.details = details;
    this.name = "HotpathError";
  }
  code;
  details;
};
function errorMessage(err) {
  return err instanceof Error ? err.message : String(err);
}

// src/core/profile/errors.ts
var RERECORD = "Re-record the profile.";
var NOT_A_PROFILE_HINT = "Open a .cpuprofile written by `node --cpu-prof`, the DevTools Profiler (Profiler.stop), Chrome DevTools or VS Code's JavaScript debugger.";
function notAProfile(source, what, hint = NOT_A_PROFILE_HINT) {
  return new HotpathError("PROFILE_INVALID" /* ProfileInvalid */, `${source} is not a valid CPU profile: ${what}. ${hint}`, {
    file: source
  });
}
function truncated(source, byte, inside) {
  return new HotpathError(
    "PROFILE_INVALID" /* ProfileInvalid */,
    `${source} is truncated (ended at byte ${byte} ${inside}). The file was probably cut off while being written; ${RERECORD.toLowerCase()}`,
    { file: source, byte }
  );
}
function badJson(source, what, byte, position) {
  return new HotpathError(
    "PROFILE_INVALID" /* ProfileInvalid */,
    `${source} is not valid JSON: ${what} at byte ${byte} (${position}). The file is damaged or not a .cpuprofile; ${RERECORD.toLowerCase()}`,
    { file: source, byte }
  );
}
function emptyFile(source) {
  return new HotpathError(
    "PROFILE_INVALID" /* ProfileInvalid */,
    `${source} is empty. The profiler probably never finished writing it (e.g. the process was killed before exiting); ${RERECORD.toLowerCase()}`,
    { file: source }
  );
}
function profileNotFound(path3, reason) {
  return new HotpathError("PROFILE_NOT_FOUND" /* ProfileNotFound */, `Cannot open profile ${path3}: ${reason}.`, { file: path3 });
}

// src/core/profile/scanner.ts
var PADDING = 8;
var keys = (...texts) => texts.map((text) => ({ text, bytes: Buffer.from(text, "latin1") }));
var TOP_KEYS = keys("nodes", "startTime", "endTime", "samples", "timeDeltas", "$vscode", "head", "traceEvents");
var NODE_KEYS = keys("id", "callFrame", "hitCount", "children", "positionTicks", "parent", "deoptReason");
var FRAME_KEYS = keys("functionName", "scriptId", "url", "lineNumber", "columnNumber");
var TICK_KEYS = keys("line", "ticks");
var INTERN_CACHE_SIZE = 4096;
var INT32_MIN = -2147483648;
var INT32_MAX = 2147483647;
function scanProfile(buf, length, source) {
  return new Scanner(buf, length, source).parse();
}
var NodeColumns = class {
  capacity = 256;
  count = 0;
  id = new Int32Array(this.capacity);
  functionName = new Int32Array(this.capacity);
  url = new Int32Array(this.capacity);
  scriptId = new Int32Array(this.capacity);
  lineNumber = new Int32Array(this.capacity);
  columnNumber = new Int32Array(this.capacity);
  hitCount = new Int32Array(this.capacity);
  parentId = new Float64Array(this.capacity);
  deoptReason = new Int32Array(this.capacity);
  childStart = new Int32Array(this.capacity);
  childCount = new Int32Array(this.capacity);
  tickStart = new Int32Array(this.capacity);
  tickCountOf = new Int32Array(this.capacity);
  /** Make room for one more node and return its index. */
  add() {
    if (this.count === this.capacity) {
      const cap = this.capacity * 2;
      const grow32 = (a) => {
        const b = new Int32Array(cap);
        b.set(a);
        return b;
      };
      this.id = grow32(this.id);
      this.functionName = grow32(this.functionName);
      this.url = grow32(this.url);
      this.scriptId = grow32(this.scriptId);
      this.lineNumber = grow32(this.lineNumber);
      this.columnNumber = grow32(this.columnNumber);
      this.hitCount = grow32(this.hitCount);
      this.deoptReason = grow32(this.deoptReason);
      this.childStart = grow32(this.childStart);
      this.childCount = grow32(this.childCount);
      this.tickStart = grow32(this.tickStart);
      this.tickCountOf = grow32(this.tickCountOf);
      const parent = new Float64Array(cap);
      parent.set(this.parentId);
      this.parentId = parent;
      this.capacity = cap;
    }
    return this.count++;
  }
};
var Scanner = class {
  constructor(buf, len, source) {
    this.buf = buf;
    this.len = len;
    this.source = source;
    if (buf.length < len + PADDING) throw new Error("scanProfile: buffer needs PADDING bytes of slack");
    buf.fill(0, len, len + PADDING);
  }
  buf;
  len;
  source;
  nodes = new NodeColumns();
  childIds = new Int32List(1024);
  tickLine = new Int32List(1024);
  tickCount = new Int32List(1024);
  strings = [];
  stringIds = /* @__PURE__ */ new Map();
  // The last string token: bytes [strStart, strEnd) between the quotes.
  strStart = 0;
  strEnd = 0;
  strEscaped = false;
  strNonAscii = false;
  // The last scalar number read by scanNumber.
  num = 0;
  // The last number array read by scanNumberArray.
  arrInts = null;
  arrFloats = null;
  skipStack = new Uint8Array(64);
  // Intern cache: byte position, length and string id of a recent string per slot (see internString).
  cacheStart = new Int32Array(INTERN_CACHE_SIZE).fill(-1);
  cacheLength = new Int32Array(INTERN_CACHE_SIZE);
  cacheId = new Int32Array(INTERN_CACHE_SIZE);
  parse() {
    const buf = this.buf;
    let p = 0;
    if (buf[0] === 239 && buf[1] === 187 && buf[2] === 191) p = 3;
    p = this.skipWs(p);
    if (p >= this.len) throw emptyFile(this.source);
    if (buf[0] === 31 && buf[1] === 139) {
      throw notAProfile(this.source, "it is gzip-compressed", "Decompress it (e.g. `gunzip`) and open the .cpuprofile inside.");
    }
    const first = buf[p];
    if (first !== 123 /* LBrace */) {
      const kind = this.describeValue(p);
      if (kind === null) throw this.unexpected(p, "at the start of the file");
      this.skipValue(p);
      throw notAProfile(
        this.source,
        first === 91 /* LBracket */ ? "it is a JSON array, not an object (this looks like a Chrome performance trace: a list of trace events)" : `it is ${kind}, not a JSON object`,
        first === 91 /* LBracket */ ? "Open a trace in Chrome DevTools' Performance panel; Hotpath reads .cpuprofile files (e.g. from `node --cpu-prof`)." : void 0
      );
    }
    let samples = null;
    let deltas = null;
    let startTime = NaN;
    let endTime = NaN;
    let sawNodes = false;
    let sawHead = false;
    let sawTrace = false;
    let vscode = null;
    const inside = "inside the top-level object";
    p = this.skipWs(p + 1);
    if (buf[p] !== 125 /* RBrace */) {
      for (; ; ) {
        if (buf[p] !== 34 /* Quote */) throw this.unexpected(p, inside);
        p = this.scanString(p, inside);
        const key = this.matchKey(TOP_KEYS);
        p = this.expectColon(p, inside);
        switch (key) {
          case 0 /* Nodes */:
            if (buf[p] !== 91 /* LBracket */) throw this.wrongType(p, `"nodes"`, "an array");
            this.nodes.count = this.childIds.length = this.tickLine.length = this.tickCount.length = 0;
            p = this.scanNodes(p);
            sawNodes = true;
            break;
          case 1 /* StartTime */:
            p = this.scanScalar(p, '"startTime"');
            startTime = this.num;
            break;
          case 2 /* EndTime */:
            p = this.scanScalar(p, '"endTime"');
            endTime = this.num;
            break;
          case 3 /* Samples */:
            p = this.scanNumberArray(p, "samples", true);
            samples = this.arrInts;
            break;
          case 4 /* TimeDeltas */:
            p = this.scanNumberArray(p, "timeDeltas", false);
            deltas = this.arrFloats ?? this.arrInts;
            break;
          case 5 /* VsCode */: {
            const start = p;
            p = this.skipValue(p);
            vscode = { start, end: p };
            break;
          }
          default:
            if (key === 6 /* Head */) sawHead = true;
            if (key === 7 /* TraceEvents */) sawTrace = true;
            p = this.skipValue(p);
        }
        p = this.skipWs(p);
        const c = buf[p];
        if (c === 44 /* Comma */) {
          p = this.skipWs(p + 1);
          continue;
        }
        if (c === 125 /* RBrace */) break;
        throw this.unexpected(p, inside);
      }
    }
    p = this.skipWs(p + 1);
    if (p < this.len) throw badJson(this.source, `unexpected ${this.describeByte(p)} after the end of the JSON document`, p, this.position(p));
    if (!sawNodes) {
      if (sawTrace) {
        throw notAProfile(
          this.source,
          'it is a Chrome performance trace ("traceEvents"), not a .cpuprofile',
          "Open it in Chrome DevTools' Performance panel, or record a .cpuprofile with `node --cpu-prof`."
        );
      }
      if (sawHead) {
        throw notAProfile(
          this.source,
          'it uses the legacy format with a nested "head" tree instead of a "nodes" array',
          "Load it in a current Chrome DevTools and save it again, or re-record it with a current Node.js or Chrome."
        );
      }
      throw this.schema('it has no "nodes" array');
    }
    if (samples === null) throw this.schema('it has no "samples" array');
    if (deltas === null) throw this.schema('it has "samples" but no "timeDeltas" array');
    if (samples.length !== deltas.length) {
      throw this.schema(`"samples" has ${samples.length} entries but "timeDeltas" has ${deltas.length}; they must be the same length`);
    }
    if (Number.isNaN(startTime) || Number.isNaN(endTime)) throw this.schema(`it has no "${Number.isNaN(startTime) ? "startTime" : "endTime"}"`);
    const n = this.nodes;
    const count = n.count;
    return {
      nodeCount: count,
      id: n.id.subarray(0, count),
      functionName: n.functionName.subarray(0, count),
      url: n.url.subarray(0, count),
      scriptId: n.scriptId.subarray(0, count),
      lineNumber: n.lineNumber.subarray(0, count),
      columnNumber: n.columnNumber.subarray(0, count),
      hitCount: n.hitCount.subarray(0, count),
      parentId: n.parentId.subarray(0, count),
      deoptReason: n.deoptReason.subarray(0, count),
      childStart: n.childStart.subarray(0, count),
      childCount: n.childCount.subarray(0, count),
      childIds: this.childIds.view(),
      tickStart: n.tickStart.subarray(0, count),
      tickCountOf: n.tickCountOf.subarray(0, count),
      tickLine: this.tickLine.view(),
      tickCount: this.tickCount.view(),
      strings: this.strings,
      startTime,
      endTime,
      samples,
      timeDeltas: deltas,
      vscode
    };
  }
  // ---- nodes --------------------------------------------------------------------------------------
  scanNodes(p) {
    const buf = this.buf;
    const inside = 'inside the "nodes" array';
    p = this.skipWs(p + 1);
    if (buf[p] === 93 /* RBracket */) return p + 1;
    for (; ; ) {
      if (buf[p] !== 123 /* LBrace */) {
        throw this.wrongType(p, `nodes[${this.nodes.count}]`, "an object");
      }
      p = this.scanNode(p);
      p = this.skipWs(p);
      const c = buf[p];
      if (c === 44 /* Comma */) {
        p = this.skipWs(p + 1);
        continue;
      }
      if (c === 93 /* RBracket */) return p + 1;
      throw this.unexpected(p, inside);
    }
  }
  scanNode(p) {
    const buf = this.buf;
    const n = this.nodes;
    const i = n.add();
    const inside = "inside a node object";
    let hasId = false;
    let hasFrame = false;
    n.functionName[i] = -1;
    n.url[i] = -1;
    n.scriptId[i] = -1;
    n.lineNumber[i] = -1;
    n.columnNumber[i] = -1;
    n.hitCount[i] = 0;
    n.parentId[i] = NaN;
    n.deoptReason[i] = -1;
    n.childStart[i] = this.childIds.length;
    n.childCount[i] = 0;
    n.tickStart[i] = this.tickLine.length;
    n.tickCountOf[i] = 0;
    p = this.skipWs(p + 1);
    if (buf[p] !== 125 /* RBrace */) {
      for (; ; ) {
        if (buf[p] !== 34 /* Quote */) throw this.unexpected(p, inside);
        p = this.scanString(p, inside);
        const key = this.matchKey(NODE_KEYS);
        p = this.expectColon(p, inside);
        switch (key) {
          case 0 /* Id */:
            p = this.scanInt(p, `nodes[${i}].id`);
            n.id[i] = this.num;
            hasId = true;
            break;
          case 1 /* CallFrame */:
            if (buf[p] !== 123 /* LBrace */) throw this.wrongType(p, `nodes[${i}].callFrame`, "an object");
            p = this.scanCallFrame(p, i);
            hasFrame = true;
            break;
          case 2 /* HitCount */:
            p = this.scanInt(p, `nodes[${i}].hitCount`);
            n.hitCount[i] = this.num;
            break;
          case 3 /* Children */: {
            this.childIds.length = n.childStart[i];
            p = this.scanIntList(p, this.childIds, `nodes[${i}].children`);
            n.childCount[i] = this.childIds.length - n.childStart[i];
            break;
          }
          case 4 /* PositionTicks */:
            this.tickLine.length = this.tickCount.length = n.tickStart[i];
            p = this.scanPositionTicks(p, i);
            n.tickCountOf[i] = this.tickLine.length - n.tickStart[i];
            break;
          case 5 /* Parent */:
            p = this.scanInt(p, `nodes[${i}].parent`);
            n.parentId[i] = this.num;
            break;
          case 6 /* DeoptReason */:
            if (buf[p] === 34 /* Quote */) {
              p = this.scanString(p, inside);
              n.deoptReason[i] = this.strEnd > this.strStart ? this.internString() : -1;
            } else {
              n.deoptReason[i] = -1;
              p = this.skipValue(p);
            }
            break;
          default:
            p = this.skipValue(p);
        }
        p = this.skipWs(p);
        const c = buf[p];
        if (c === 44 /* Comma */) {
          p = this.skipWs(p + 1);
          continue;
        }
        if (c === 125 /* RBrace */) break;
        throw this.unexpected(p, inside);
      }
    }
    if (!hasId) throw this.schema(`nodes[${i}] has no "id"`);
    if (!hasFrame) throw this.schema(`nodes[${i}] (id ${n.id[i]}) has no "callFrame"`);
    return p + 1;
  }
  scanCallFrame(p, i) {
    const buf = this.buf;
    const n = this.nodes;
    const inside = "inside a callFrame object";
    n.functionName[i] = n.url[i] = n.scriptId[i] = -1;
    n.lineNumber[i] = n.columnNumber[i] = -1;
    p = this.skipWs(p + 1);
    if (buf[p] !== 125 /* RBrace */) {
      for (; ; ) {
        if (buf[p] !== 34 /* Quote */) throw this.unexpected(p, inside);
        p = this.scanString(p, inside);
        const key = this.matchKey(FRAME_KEYS);
        p = this.expectColon(p, inside);
        switch (key) {
          case 0 /* FunctionName */:
          case 2 /* Url */:
            if (buf[p] !== 34 /* Quote */) {
              throw this.wrongType(p, `nodes[${i}].callFrame.${FRAME_KEYS[key].text}`, "a string");
            }
            p = this.scanString(p, inside);
            if (key === 2 /* Url */) n.url[i] = this.internString();
            else n.functionName[i] = this.internString();
            break;
          case 1 /* ScriptId */:
            if (buf[p] === 34 /* Quote */) {
              p = this.scanString(p, inside);
              n.scriptId[i] = this.internString();
            } else {
              p = this.scanScalar(p, `nodes[${i}].callFrame.scriptId`);
              n.scriptId[i] = this.intern(String(this.num));
            }
            break;
          case 3 /* LineNumber */:
            p = this.scanInt(p, `nodes[${i}].callFrame.lineNumber`);
            n.lineNumber[i] = this.num;
            break;
          case 4 /* ColumnNumber */:
            p = this.scanInt(p, `nodes[${i}].callFrame.columnNumber`);
            n.columnNumber[i] = this.num;
            break;
          default:
            p = this.skipValue(p);
        }
        p = this.skipWs(p);
        const c = buf[p];
        if (c === 44 /* Comma */) {
          p = this.skipWs(p + 1);
          continue;
        }
        if (c === 125 /* RBrace */) break;
        throw this.unexpected(p, inside);
      }
    }
    if (n.functionName[i] < 0) n.functionName[i] = this.intern("");
    if (n.url[i] < 0) n.url[i] = this.intern("");
    if (n.scriptId[i] < 0) n.scriptId[i] = this.intern("");
    return p + 1;
  }
  scanPositionTicks(p, i) {
    const buf = this.buf;
    const what = `nodes[${i}].positionTicks`;
    if (buf[p] !== 91 /* LBracket */) throw this.wrongType(p, `${what}`, "an array");
    const inside = 'inside a "positionTicks" array';
    p = this.skipWs(p + 1);
    if (buf[p] === 93 /* RBracket */) return p + 1;
    for (; ; ) {
      if (buf[p] !== 123 /* LBrace */) {
        throw this.wrongType(p, `an entry of ${what}`, '{"line", "ticks"}');
      }
      let line = -1;
      let ticks = -1;
      p = this.skipWs(p + 1);
      if (buf[p] !== 125 /* RBrace */) {
        for (; ; ) {
          if (buf[p] !== 34 /* Quote */) throw this.unexpected(p, "inside a position tick object");
          p = this.scanString(p, "inside a position tick object");
          const key = this.matchKey(TICK_KEYS);
          p = this.expectColon(p, "inside a position tick object");
          if (key === 0 /* Line */) {
            p = this.scanInt(p, `${what}[].line`);
            line = this.num;
          } else if (key === 1 /* Ticks */) {
            p = this.scanInt(p, `${what}[].ticks`);
            ticks = this.num;
          } else {
            p = this.skipValue(p);
          }
          p = this.skipWs(p);
          const c2 = buf[p];
          if (c2 === 44 /* Comma */) {
            p = this.skipWs(p + 1);
            continue;
          }
          if (c2 === 125 /* RBrace */) break;
          throw this.unexpected(p, "inside a position tick object");
        }
      }
      if (line < 0 || ticks < 0) throw this.schema(`an entry of ${what} lacks "line" or "ticks"`);
      this.tickLine.push(line);
      this.tickCount.push(ticks);
      p = this.skipWs(p + 1);
      const c = buf[p];
      if (c === 44 /* Comma */) {
        p = this.skipWs(p + 1);
        continue;
      }
      if (c === 93 /* RBracket */) return p + 1;
      throw this.unexpected(p, inside);
    }
  }
  /** A short array of int32 (children ids). */
  scanIntList(p, out, what) {
    const buf = this.buf;
    if (buf[p] !== 91 /* LBracket */) throw this.wrongType(p, `${what}`, "an array of ids");
    const inside = `inside ${what}`;
    p = this.skipWs(p + 1);
    if (buf[p] === 93 /* RBracket */) return p + 1;
    for (; ; ) {
      p = this.scanInt(p, `an entry of ${what}`);
      out.push(this.num);
      p = this.skipWs(p);
      const c = buf[p];
      if (c === 44 /* Comma */) {
        p = this.skipWs(p + 1);
        continue;
      }
      if (c === 93 /* RBracket */) return p + 1;
      throw this.unexpected(p, inside);
    }
  }
  // ---- the big number arrays -----------------------------------------------------------------------
  /**
   * The hot loop: `samples` and `timeDeltas` are most of the file. Integers that fit int32 (all of them
   * in practice) go straight into an Int32Array; any other number switches the array to Float64Array
   * (timeDeltas only; samples are node ids and must be integers). The array is pre-sized from a probe of
   * its first 64 KB so it rarely grows.
   */
  scanNumberArray(p, name, intOnly) {
    const buf = this.buf;
    const inside = `inside the "${name}" array`;
    if (buf[p] !== 91 /* LBracket */) throw this.wrongType(p, `"${name}"`, "an array of numbers");
    p++;
    let cap = this.estimateArrayLength(p);
    let ints = new Int32Array(cap);
    let floats = null;
    let n = 0;
    let c = buf[p];
    if (c <= 32 /* Space */) c = buf[p = this.skipWs(p)];
    if (c === 93 /* RBracket */) {
      this.arrInts = ints.subarray(0, 0);
      this.arrFloats = null;
      return p + 1;
    }
    for (; ; ) {
      const start = p;
      let v = 0;
      let neg = false;
      if (c === 45 /* Minus */) {
        neg = true;
        c = buf[++p];
      }
      if (c >= 49 /* D1 */ && c <= 57 /* D9 */) {
        v = c - 48 /* D0 */;
        c = buf[++p];
        while (c >= 48 /* D0 */ && c <= 57 /* D9 */) {
          v = v * 10 + (c - 48 /* D0 */) | 0;
          c = buf[++p];
        }
      } else if (c === 48 /* D0 */) {
        c = buf[++p];
      } else {
        throw this.unexpected(p, inside);
      }
      let exact = true;
      if (c === 46 /* Dot */ || c === 101 /* LowerE */ || c === 69 /* UpperE */ || p - start > (neg ? 10 : 9)) {
        p = this.scanNumber(start, inside);
        v = this.num;
        c = buf[p];
        exact = false;
      } else if (neg) {
        v = -v;
      }
      if (n === cap) {
        cap = cap + (cap >> 2) + 1024;
        if (floats === null) {
          const grown = new Int32Array(cap);
          grown.set(ints);
          ints = grown;
        } else {
          const grown = new Float64Array(cap);
          grown.set(floats);
          floats = grown;
        }
      }
      if (floats !== null) {
        floats[n++] = v;
      } else if (exact || (v | 0) === v) {
        ints[n++] = v;
      } else if (intOnly) {
        throw this.schema(`"${name}"[${n}] is ${v}, expected an integer node id`);
      } else {
        floats = new Float64Array(cap);
        for (let k = 0; k < n; k++) floats[k] = ints[k];
        ints = new Int32Array(0);
        floats[n++] = v;
      }
      if (c <= 32 /* Space */) c = buf[p = this.skipWs(p)];
      if (c === 44 /* Comma */) {
        c = buf[++p];
        if (c <= 32 /* Space */) c = buf[p = this.skipWs(p)];
        continue;
      }
      if (c === 93 /* RBracket */) break;
      throw this.unexpected(p, inside);
    }
    if (floats === null) {
      this.arrInts = ints.subarray(0, n);
      this.arrFloats = null;
    } else {
      this.arrInts = null;
      this.arrFloats = floats.subarray(0, n);
    }
    return p + 1;
  }
  /** Element count of the number array starting at p: exact if it is short, else a close upper estimate. */
  estimateArrayLength(p) {
    const buf = this.buf;
    const close = buf.indexOf(93 /* RBracket */, p);
    const end = close < 0 || close > this.len ? this.len : close;
    const probeEnd = Math.min(end, p + 65536);
    let commas = 0;
    for (let i = p; i < probeEnd; i++) if (buf[i] === 44 /* Comma */) commas++;
    if (probeEnd === end) return commas + 1;
    const bytesPerElement = (probeEnd - p) / (commas + 1);
    return Math.ceil((end - p) / bytesPerElement * 1.03) + 1024;
  }
  // ---- scalars ------------------------------------------------------------------------------------
  /** A number that must be an int32 (ids, counts, line numbers). */
  scanInt(p, what) {
    p = this.scanScalar(p, what);
    const v = this.num;
    if (!Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) throw this.schema(`${what} is ${v}, expected an integer`);
    return p;
  }
  /** A JSON number where the schema wants one; anything else is a schema error naming `what`. */
  scanScalar(p, what) {
    const c = this.buf[p];
    if (c === 45 /* Minus */ || c >= 48 /* D0 */ && c <= 57 /* D9 */) return this.scanNumber(p, `in ${what}`);
    const kind = this.describeValue(p);
    if (kind === null) throw this.unexpected(p, `before the value of ${what}`);
    throw this.schema(`${what} is ${kind}, expected a number`);
  }
  /** Validates the JSON number grammar at p and leaves its value in this.num. */
  scanNumber(p, inside) {
    const buf = this.buf;
    const start = p;
    let c = buf[p];
    if (c === 45 /* Minus */) c = buf[++p];
    if (c === 48 /* D0 */) {
      c = buf[++p];
    } else if (c >= 49 /* D1 */ && c <= 57 /* D9 */) {
      do
        c = buf[++p];
      while (c >= 48 /* D0 */ && c <= 57 /* D9 */);
    } else {
      throw this.unexpected(p, inside);
    }
    let simple = true;
    if (c === 46 /* Dot */) {
      simple = false;
      c = buf[++p];
      if (c < 48 /* D0 */ || c > 57 /* D9 */) throw this.unexpected(p, inside);
      do
        c = buf[++p];
      while (c >= 48 /* D0 */ && c <= 57 /* D9 */);
    }
    if (c === 101 /* LowerE */ || c === 69 /* UpperE */) {
      simple = false;
      c = buf[++p];
      if (c === 43 /* Plus */ || c === 45 /* Minus */) c = buf[++p];
      if (c < 48 /* D0 */ || c > 57 /* D9 */) throw this.unexpected(p, inside);
      do
        c = buf[++p];
      while (c >= 48 /* D0 */ && c <= 57 /* D9 */);
    }
    if (simple && p - start <= 15) {
      let v = 0;
      const neg = buf[start] === 45 /* Minus */;
      for (let k = neg ? start + 1 : start; k < p; k++) v = v * 10 + (buf[k] - 48 /* D0 */);
      this.num = neg ? -v : v;
    } else {
      this.num = Number(buf.toString("latin1", start, p));
    }
    return p;
  }
  // ---- strings ------------------------------------------------------------------------------------
  /** Scans the string at p (its opening quote); returns the position after the closing quote. */
  scanString(p, inside) {
    const buf = this.buf;
    let q = p + 1;
    let escaped = false;
    let nonAscii = false;
    for (; ; ) {
      const c = buf[q];
      if (c === 34 /* Quote */) break;
      if (c === 92 /* Backslash */) {
        escaped = true;
        const e = buf[q + 1];
        if (e === 117 /* LowerU */) {
          for (let k = 2; k < 6; k++) {
            const h = buf[q + k];
            const hex = h >= 48 /* D0 */ && h <= 57 /* D9 */ || h >= 65 /* UpperA */ && h <= 70 /* UpperF */ || h >= 97 /* LowerA */ && h <= 102 /* LowerF */;
            if (!hex) throw this.unexpected(q + k, "in a \\u escape inside a string");
          }
          q += 6;
        } else if (e === 34 /* Quote */ || e === 92 /* Backslash */ || e === 47 /* Slash */ || e === 98 /* LowerB */ || e === 102 /* LowerF */ || e === 110 /* LowerN */ || e === 114 /* LowerR */ || e === 116 /* LowerT */) {
          q += 2;
        } else {
          throw this.unexpected(q + 1, "after a backslash inside a string");
        }
        continue;
      }
      if (c < 32 /* Space */) {
        if (q >= this.len) throw truncated(this.source, this.len, `inside a string ${inside}`);
        throw badJson(this.source, `unescaped control character ${this.describeByte(q)} in a string`, q, this.position(q));
      }
      if (c >= 128) nonAscii = true;
      q++;
    }
    this.strStart = p + 1;
    this.strEnd = q;
    this.strEscaped = escaped;
    this.strNonAscii = nonAscii;
    return q + 1;
  }
  /** The last scanned string as a JS string. */
  stringValue() {
    const s = this.strStart;
    const e = this.strEnd;
    if (this.strEscaped) return JSON.parse(this.buf.toString("utf8", s - 1, e + 1));
    return this.strNonAscii ? this.buf.toString("utf8", s, e) : this.buf.toString("latin1", s, e);
  }
  /**
   * Intern the last scanned string. A direct-mapped cache keyed by a few of its bytes remembers where
   * an equal string was seen before, so the ~3 strings per node of a big profile (mostly the same urls
   * and names over and over) rarely allocate a JS string or hash one.
   */
  internString() {
    if (this.strEscaped) return this.intern(this.stringValue());
    const buf = this.buf;
    const s = this.strStart;
    const len = this.strEnd - s;
    let h = len;
    if (len > 0) {
      const e = s + len - 1;
      h = Math.imul(h ^ buf[s], 16777619) ^ buf[s + (len >> 1)];
      h = Math.imul(h ^ buf[e], 16777619) ^ buf[e - (len > 1 ? 1 : 0)];
      h = Math.imul(h ^ buf[e - (len > 4 ? 4 : 0)], 16777619) ^ buf[e - (len > 6 ? 6 : 0)];
      h ^= h >>> 13;
    }
    const slot = h & INTERN_CACHE_SIZE - 1;
    const at = this.cacheStart[slot];
    if (at >= 0 && this.cacheLength[slot] === len) {
      let k = 0;
      while (k < len && buf[at + k] === buf[s + k]) k++;
      if (k === len) return this.cacheId[slot];
    }
    const id = this.intern(this.stringValue());
    this.cacheStart[slot] = s;
    this.cacheLength[slot] = len;
    this.cacheId[slot] = id;
    return id;
  }
  intern(value) {
    let id = this.stringIds.get(value);
    if (id === void 0) {
      id = this.strings.length;
      this.strings.push(value);
      this.stringIds.set(value, id);
    }
    return id;
  }
  /** Index of the last scanned string in `table`, or -1. */
  matchKey(table) {
    if (this.strEscaped) {
      const text = this.stringValue();
      return table.findIndex((k) => k.text === text);
    }
    const buf = this.buf;
    const s = this.strStart;
    const n = this.strEnd - s;
    outer: for (let i = 0; i < table.length; i++) {
      const bytes = table[i].bytes;
      if (bytes.length !== n) continue;
      for (let j = 0; j < n; j++) if (buf[s + j] !== bytes[j]) continue outer;
      return i;
    }
    return -1;
  }
  // ---- generic skipping ---------------------------------------------------------------------------
  /**
   * Skips any JSON value with full validation. Iterative (an explicit stack of open containers) so that
   * deeply nested input cannot overflow the call stack.
   */
  skipValue(p) {
    const buf = this.buf;
    let stack = this.skipStack;
    let depth = 0;
    const OBJECT = 1;
    const ARRAY = 2;
    const insideOf = () => depth === 0 ? "inside a value" : stack[depth - 1] === OBJECT ? "inside an object" : "inside an array";
    for (; ; ) {
      p = this.skipWs(p);
      const c = buf[p];
      let container = 0;
      if (c === 123 /* LBrace */) {
        p = this.skipWs(p + 1);
        if (buf[p] === 125 /* RBrace */) p++;
        else container = OBJECT;
      } else if (c === 91 /* LBracket */) {
        p = this.skipWs(p + 1);
        if (buf[p] === 93 /* RBracket */) p++;
        else container = ARRAY;
      } else if (c === 34 /* Quote */) {
        p = this.scanString(p, insideOf());
      } else if (c === 45 /* Minus */ || c >= 48 /* D0 */ && c <= 57 /* D9 */) {
        p = this.scanNumber(p, insideOf());
      } else if (c === 116 /* LowerT */ || c === 102 /* LowerF */ || c === 110 /* LowerN */) {
        p = this.scanLiteral(p, insideOf());
      } else {
        throw this.unexpected(p, insideOf());
      }
      if (container !== 0) {
        if (depth === stack.length) {
          const grown = new Uint8Array(stack.length * 2);
          grown.set(stack);
          this.skipStack = stack = grown;
        }
        stack[depth++] = container;
        if (container === OBJECT) p = this.scanMemberName(p, insideOf());
        continue;
      }
      for (; ; ) {
        if (depth === 0) return p;
        p = this.skipWs(p);
        const d = buf[p];
        const top = stack[depth - 1];
        if (d === 44 /* Comma */) {
          p = this.skipWs(p + 1);
          if (top === OBJECT) p = this.scanMemberName(p, insideOf());
          break;
        }
        if (top === OBJECT && d === 125 /* RBrace */ || top === ARRAY && d === 93 /* RBracket */) {
          p++;
          depth--;
          continue;
        }
        throw this.unexpected(p, insideOf());
      }
    }
  }
  /** `"name":` at p (whitespace already skipped); returns the position of the value. */
  scanMemberName(p, inside) {
    if (this.buf[p] !== 34 /* Quote */) throw this.unexpected(p, inside);
    p = this.scanString(p, inside);
    return this.expectColon(p, inside);
  }
  scanLiteral(p, inside) {
    const buf = this.buf;
    const word = buf[p] === 116 /* LowerT */ ? "true" : buf[p] === 102 /* LowerF */ ? "false" : "null";
    for (let k = 1; k < word.length; k++) {
      if (buf[p + k] !== word.charCodeAt(k)) throw this.unexpected(p + k, inside);
    }
    return p + word.length;
  }
  /** Skips whitespace, a colon and whitespace; returns the position of the member's value. */
  expectColon(p, inside) {
    p = this.skipWs(p);
    if (this.buf[p] !== 58 /* Colon */) throw this.unexpected(p, inside);
    return this.skipWs(p + 1);
  }
  skipWs(p) {
    const buf = this.buf;
    let c = buf[p];
    while (c === 32 /* Space */ || c === 10 /* Lf */ || c === 13 /* Cr */ || c === 9 /* Tab */) c = buf[++p];
    return p;
  }
  // ---- errors -------------------------------------------------------------------------------------
  /** A byte the grammar does not allow at p: truncation if p is the end of the data. */
  unexpected(p, inside) {
    if (p >= this.len) return truncated(this.source, this.len, inside);
    return badJson(this.source, `unexpected ${this.describeByte(p)} ${inside}`, p, this.position(p));
  }
  /** A value of the wrong JSON type where the schema wants `expected` (or no value at all: a syntax error). */
  wrongType(p, what, expected) {
    const kind = this.describeValue(p);
    if (kind === null) return this.unexpected(p, `before the value of ${what}`);
    return this.schema(`${what} is ${kind}, expected ${expected}`);
  }
  schema(what) {
    return notAProfile(this.source, what);
  }
  /** The JSON type starting at p, for schema messages; null if no value starts there. */
  describeValue(p) {
    switch (this.buf[p]) {
      case 123 /* LBrace */:
        return "an object";
      case 91 /* LBracket */:
        return "an array";
      case 34 /* Quote */:
        return "a string";
      case 116 /* LowerT */:
      case 102 /* LowerF */:
        return "a boolean";
      case 110 /* LowerN */:
        return "null";
      default: {
        const c = this.buf[p];
        return c === 45 /* Minus */ || c >= 48 /* D0 */ && c <= 57 /* D9 */ ? "a number" : null;
      }
    }
  }
  describeByte(p) {
    const c = this.buf[p];
    if (c > 32 && c < 127) return `'${String.fromCharCode(c)}'`;
    return `byte 0x${c.toString(16).padStart(2, "0").toUpperCase()}`;
  }
  /** "line L, column C" of byte p (1-based), for error messages only. */
  position(p) {
    const buf = this.buf;
    let line = 1;
    let lineStart = 0;
    for (let i = buf.indexOf(10 /* Lf */, 0); i >= 0 && i < p; i = buf.indexOf(10 /* Lf */, i + 1)) {
      line++;
      lineStart = i + 1;
    }
    return `line ${line}, column ${p - lineStart + 1}`;
  }
};

// src/core/profile/tree.ts
var IdIndex = class {
  table = null;
  map = null;
  constructor(ids, source) {
    const n = ids.length;
    let min = 0;
    let max = -1;
    for (let i = 0; i < n; i++) {
      const id = ids[i];
      if (id < min) min = id;
      if (id > max) max = id;
    }
    if (min >= 0 && max < 4 * n + 1024) {
      const table = new Int32Array(max + 1).fill(-1);
      for (let i = 0; i < n; i++) {
        if (table[ids[i]] !== -1) throw duplicateId(source, ids[i]);
        table[ids[i]] = i;
      }
      this.table = table;
    } else {
      const map = /* @__PURE__ */ new Map();
      for (let i = 0; i < n; i++) {
        if (map.has(ids[i])) throw duplicateId(source, ids[i]);
        map.set(ids[i], i);
      }
      this.map = map;
    }
  }
  /** Index of `id`, or -1. */
  get(id) {
    if (this.table !== null) return id >= 0 && id < this.table.length ? this.table[id] : -1;
    return this.map.get(id) ?? -1;
  }
  /** Rewrites node ids to indices in place; returns the position of the first unknown id, or -1. */
  mapInPlace(ids) {
    const table = this.table;
    if (table !== null) {
      const size = table.length;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        const index = id >= 0 && id < size ? table[id] : -1;
        if (index < 0) return i;
        ids[i] = index;
      }
      return -1;
    }
    for (let i = 0; i < ids.length; i++) {
      const index = this.map.get(ids[i]);
      if (index === void 0) return i;
      ids[i] = index;
    }
    return -1;
  }
};
function duplicateId(source, id) {
  return notAProfile(source, `node id ${id} appears more than once in "nodes"`);
}
function buildTree(raw, source) {
  const n = raw.nodeCount;
  if (n === 0) throw notAProfile(source, '"nodes" is empty');
  const index = new IdIndex(raw.id, source);
  const parent = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const start = raw.childStart[i];
    const end = start + raw.childCount[i];
    for (let k = start; k < end; k++) {
      const childId = raw.childIds[k];
      const c = index.get(childId);
      if (c < 0) throw notAProfile(source, `node ${raw.id[i]} lists child ${childId}, which is not in "nodes"`);
      if (c === i) throw notAProfile(source, `node ${raw.id[i]} lists itself as its child`);
      if (parent[c] !== -1 && parent[c] !== i) {
        throw notAProfile(source, `node ${childId} is a child of both node ${raw.id[parent[c]]} and node ${raw.id[i]}`);
      }
      parent[c] = i;
    }
  }
  for (let i = 0; i < n; i++) {
    const pid = raw.parentId[i];
    if (parent[i] !== -1 || Number.isNaN(pid)) continue;
    const p = index.get(pid);
    if (p < 0) throw notAProfile(source, `node ${raw.id[i]} names parent ${pid}, which is not in "nodes"`);
    parent[i] = p;
  }
  let rootIndex = -1;
  for (let i = 0; i < n; i++) {
    if (parent[i] !== -1) continue;
    if (rootIndex !== -1) throw notAProfile(source, `it has more than one root node (nodes ${raw.id[rootIndex]} and ${raw.id[i]} have no parent)`);
    rootIndex = i;
  }
  if (rootIndex === -1) throw notAProfile(source, "its call tree has no root: every node has a parent, so the tree contains a cycle");
  const childOffsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) if (parent[i] >= 0) childOffsets[parent[i] + 1]++;
  for (let i = 0; i < n; i++) childOffsets[i + 1] += childOffsets[i];
  const childIndex = new Int32Array(Math.max(0, n - 1));
  const fill = childOffsets.slice(0, n);
  for (let i = 0; i < n; i++) if (parent[i] >= 0) childIndex[fill[parent[i]]++] = i;
  const preorder = new Int32Array(n);
  const depth = new Int32Array(n);
  const stack = new Int32Array(n);
  let top = 0;
  let visited = 0;
  stack[top++] = rootIndex;
  while (top > 0) {
    const v = stack[--top];
    preorder[visited++] = v;
    for (let k = childOffsets[v + 1] - 1; k >= childOffsets[v]; k--) {
      const c = childIndex[k];
      depth[c] = depth[v] + 1;
      stack[top++] = c;
    }
  }
  if (visited !== n) {
    throw notAProfile(source, `${n - visited} node(s) are not reachable from the root: the call tree contains a cycle`);
  }
  const samples = raw.samples;
  const bad = index.mapInPlace(samples);
  if (bad >= 0) throw notAProfile(source, `samples[${bad}] refers to node id ${samples[bad]}, which is not in "nodes"`);
  const { selfUs, durationUs } = selfTimes(samples, raw.timeDeltas, raw.startTime, raw.endTime, n);
  const totalUs = Float64Array.from(selfUs);
  for (let k = n - 1; k > 0; k--) {
    const v = preorder[k];
    totalUs[parent[v]] += totalUs[v];
  }
  return { rootIndex, parent, depth, childOffsets, childIndex, preorder, samples, selfUs, totalUs, durationUs };
}
function selfTimes(samples, deltas, startTime, endTime, n) {
  const selfUs = new Float64Array(n);
  const count = samples.length;
  let durationUs = 0;
  let sumDeltas = 0;
  for (let i = 0; i < count - 1; i++) {
    const d = deltas[i + 1];
    sumDeltas += deltas[i];
    if (d > 0) {
      selfUs[samples[i]] += d;
      durationUs += d;
    }
  }
  if (count > 0) {
    const last = endTime - (startTime + sumDeltas + deltas[count - 1]);
    if (last > 0) {
      selfUs[samples[count - 1]] += last;
      durationUs += last;
    }
  }
  return { selfUs, durationUs };
}

// src/core/profile/model.ts
function buildProfileModel(input, options = {}) {
  let buf;
  let length;
  if (typeof input === "string") {
    length = Buffer.byteLength(input, "utf8");
    buf = Buffer.allocUnsafe(length + PADDING);
    buf.write(input, 0, "utf8");
  } else {
    length = input.byteLength;
    buf = Buffer.allocUnsafe(length + PADDING);
    buf.set(input, 0);
  }
  return modelFromBuffer(buf, length, options.sourceName ?? "The profile", options.thread);
}
function modelFromBuffer(buf, length, source, thread) {
  const raw = scanProfile(buf, length, source);
  const tree = buildTree(raw, source);
  const table = buildFunctions(raw, tree);
  const lines = buildLineTable(raw, tree, table);
  let idleUs = 0;
  let gcUs = 0;
  let programUs = 0;
  table.functions.forEach((info, f) => {
    if (info.category === "idle") idleUs += table.selfUs[f];
    else if (info.category === "gc") gcUs += table.selfUs[f];
    else if (info.category === "program") programUs += table.selfUs[f];
  });
  const annotations = raw.vscode ? parseJsDebugAnnotations(buf.toString("utf8", raw.vscode.start, raw.vscode.end)) : {};
  const model = {
    source,
    thread,
    startTime: raw.startTime,
    endTime: raw.endTime,
    durationUs: tree.durationUs,
    sampleCount: tree.samples.length,
    idleUs,
    gcUs,
    programUs,
    nodeCount: raw.nodeCount,
    rootIndex: tree.rootIndex,
    nodes: {
      id: raw.id,
      parent: tree.parent,
      func: table.nodeFunction,
      selfUs: tree.selfUs,
      totalUs: tree.totalUs,
      hitCount: raw.hitCount,
      depth: tree.depth,
      childOffsets: tree.childOffsets,
      childIndex: tree.childIndex,
      preorder: tree.preorder
    },
    functions: table.functions,
    functionSelfUs: table.selfUs,
    functionTotalUs: table.totalUs,
    lines,
    samples: tree.samples,
    timeDeltas: raw.timeDeltas,
    rootPath: annotations.rootPath,
    sourceMaps: { applied: false, scriptsMapped: 0, functionsMapped: 0, linesMapped: 0, failures: [] },
    warnings: [],
    jsDebug: annotations.locations
  };
  model.warnings.push(...profileWarnings(model));
  return model;
}

// src/core/profile/read.ts
var import_promises = require("node:fs/promises");
var path = __toESM(require("node:path"));
async function readPadded(file) {
  let handle;
  try {
    handle = await (0, import_promises.open)(file, "r");
  } catch (err) {
    throw notFound(file, err);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw profileNotFound(file, stat.isDirectory() ? "it is a directory, not a file" : "it is not a regular file");
    let buf = Buffer.allocUnsafe(stat.size + PADDING);
    let length = 0;
    for (; ; ) {
      if (length === buf.length - PADDING) {
        const probe = Buffer.allocUnsafe(64 * 1024);
        const { bytesRead: bytesRead2 } = await handle.read(probe, 0, probe.length, length);
        if (bytesRead2 === 0) break;
        const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, length + bytesRead2 + PADDING));
        buf.copy(grown, 0, 0, length);
        probe.copy(grown, length, 0, bytesRead2);
        buf = grown;
        length += bytesRead2;
        continue;
      }
      const { bytesRead } = await handle.read(buf, length, buf.length - PADDING - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { buf, length };
  } catch (err) {
    if (err instanceof Error && err.name === "HotpathError") throw err;
    throw notFound(file, err);
  } finally {
    await handle.close().catch(() => void 0);
  }
}
function notFound(file, err) {
  const code = err?.code;
  switch (code) {
    case "ENOENT":
      return profileNotFound(file, "the file does not exist. Check the path, or record a profile first");
    case "EACCES":
    case "EPERM":
      return profileNotFound(file, "permission denied. Check the file's permissions");
    case "EISDIR":
      return profileNotFound(file, "it is a directory, not a file");
    default:
      return profileNotFound(file, `it could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
}
function threadFromFileName(file) {
  const match = /^CPU\.\d{8}\.\d{6}\.\d+\.(\d+)\.\d+\.cpuprofile$/.exec(path.basename(file));
  if (!match) return void 0;
  return match[1] === "0" ? "main" : `worker ${match[1]}`;
}

// src/core/profile/sourceMaps.ts
var import_promises2 = require("node:fs/promises");
var path2 = __toESM(require("node:path"));
var import_node_url2 = require("node:url");

// node_modules/@jridgewell/sourcemap-codec/dist/sourcemap-codec.mjs
var comma = ",".charCodeAt(0);
var semicolon = ";".charCodeAt(0);
var chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
var intToChar = new Uint8Array(64);
var charToInt = new Uint8Array(128);
for (let i = 0; i < chars.length; i++) {
  const c = chars.charCodeAt(i);
  intToChar[i] = c;
  charToInt[c] = i;
}
function decodeInteger(reader) {
  let value = 0;
  let shift = 0;
  let integer = 0;
  do {
    const c = reader.next();
    integer = charToInt[c];
    value |= (integer & 31) << shift;
    shift += 5;
  } while (integer & 32);
  return value;
}
function decodeSign(num) {
  return num & 1 ? -2147483648 | -(num >>> 1) : num >>> 1;
}
function hasMoreVlq(reader, max) {
  if (reader.pos >= max) return false;
  return reader.peek() !== comma;
}
var bufLength = 1024 * 16;
var StringReader = class {
  constructor(buffer) {
    this.pos = 0;
    this.buffer = buffer;
  }
  next() {
    return this.buffer.charCodeAt(this.pos++);
  }
  peek() {
    return this.buffer.charCodeAt(this.pos);
  }
  indexOf(char) {
    const { buffer, pos } = this;
    const idx = buffer.indexOf(char, pos);
    return idx === -1 ? buffer.length : idx;
  }
};
function decode(mappings) {
  const { length } = mappings;
  const reader = new StringReader(mappings);
  const decoded = [];
  let genColumn = 0;
  let sourcesIndex = 0;
  let sourceLine = 0;
  let sourceColumn = 0;
  let namesIndex = 0;
  do {
    const semi = reader.indexOf(";");
    const line = [];
    let sorted = true;
    let lastCol = 0;
    genColumn = 0;
    while (reader.pos < semi) {
      let seg;
      genColumn += decodeSign(decodeInteger(reader));
      if (genColumn < lastCol) sorted = false;
      lastCol = genColumn;
      if (hasMoreVlq(reader, semi)) {
        sourcesIndex += decodeSign(decodeInteger(reader));
        sourceLine += decodeSign(decodeInteger(reader));
        sourceColumn += decodeSign(decodeInteger(reader));
        if (hasMoreVlq(reader, semi)) {
          namesIndex += decodeSign(decodeInteger(reader));
          seg = [genColumn, sourcesIndex, sourceLine, sourceColumn, namesIndex];
        } else {
          seg = [genColumn, sourcesIndex, sourceLine, sourceColumn];
        }
      } else {
        seg = [genColumn];
      }
      line.push(seg);
      reader.pos++;
    }
    if (!sorted) sort(line);
    decoded.push(line);
    reader.pos = semi + 1;
  } while (reader.pos <= length);
  return decoded;
}
function sort(line) {
  line.sort(sortComparator);
}
function sortComparator(a, b) {
  return a[0] - b[0];
}

// node_modules/@jridgewell/resolve-uri/dist/resolve-uri.mjs
var schemeRegex = /^[\w+.-]+:\/\//;
var urlRegex = /^([\w+.-]+:)\/\/([^@/#?]*@)?(\[[^\]]+\]|[^:/#?]*)(:\d+)?(\/[^#?]*)?(\?[^#]*)?(#.*)?/;
var fileRegex = /^file:(?:\/\/((?![a-z]:)[^/#?]*)?)?(\/?[^#?]*)(\?[^#]*)?(#.*)?/i;
function isAbsoluteUrl(input) {
  return schemeRegex.test(input);
}
function isSchemeRelativeUrl(input) {
  return input.startsWith("//");
}
function isAbsolutePath2(input) {
  return input.startsWith("/");
}
function isFileUrl(input) {
  return input.startsWith("file:");
}
function isRelative(input) {
  return /^[.?#]/.test(input);
}
function parseAbsoluteUrl(input) {
  const match = urlRegex.exec(input);
  return makeUrl(match[1], match[2] || "", match[3], match[4] || "", match[5] || "/", match[6] || "", match[7] || "");
}
function parseFileUrl(input) {
  const match = fileRegex.exec(input);
  const path3 = match[2];
  return makeUrl("file:", "", match[1] || "", "", isAbsolutePath2(path3) ? path3 : "/" + path3, match[3] || "", match[4] || "");
}
function makeUrl(scheme, user, host, port, path3, query, hash) {
  return {
    scheme,
    user,
    host,
    port,
    path: path3,
    query,
    hash,
    type: 7
  };
}
function parseUrl(input) {
  if (isSchemeRelativeUrl(input)) {
    const url2 = parseAbsoluteUrl("http:" + input);
    url2.scheme = "";
    url2.type = 6;
    return url2;
  }
  if (isAbsolutePath2(input)) {
    const url2 = parseAbsoluteUrl("http://foo.com" + input);
    url2.scheme = "";
    url2.host = "";
    url2.type = 5;
    return url2;
  }
  if (isFileUrl(input))
    return parseFileUrl(input);
  if (isAbsoluteUrl(input))
    return parseAbsoluteUrl(input);
  const url = parseAbsoluteUrl("http://foo.com/" + input);
  url.scheme = "";
  url.host = "";
  url.type = input ? input.startsWith("?") ? 3 : input.startsWith("#") ? 2 : 4 : 1;
  return url;
}
function stripPathFilename(path3) {
  if (path3.endsWith("/.."))
    return path3;
  const index = path3.lastIndexOf("/");
  return path3.slice(0, index + 1);
}
function mergePaths(url, base) {
  normalizePath(base, base.type);
  if (url.path === "/") {
    url.path = base.path;
  } else {
    url.path = stripPathFilename(base.path) + url.path;
  }
}
function normalizePath(url, type) {
  const rel = type <= 4;
  const pieces = url.path.split("/");
  let pointer = 1;
  let positive = 0;
  let addTrailingSlash = false;
  for (let i = 1; i < pieces.length; i++) {
    const piece = pieces[i];
    if (!piece) {
      addTrailingSlash = true;
      continue;
    }
    addTrailingSlash = false;
    if (piece === ".")
      continue;
    if (piece === "..") {
      if (positive) {
        addTrailingSlash = true;
        positive--;
        pointer--;
      } else if (rel) {
        pieces[pointer++] = piece;
      }
      continue;
    }
    pieces[pointer++] = piece;
    positive++;
  }
  let path3 = "";
  for (let i = 1; i < pointer; i++) {
    path3 += "/" + pieces[i];
  }
  if (!path3 || addTrailingSlash && !path3.endsWith("/..")) {
    path3 += "/";
  }
  url.path = path3;
}
function resolve(input, base) {
  if (!input && !base)
    return "";
  const url = parseUrl(input);
  let inputType = url.type;
  if (base && inputType !== 7) {
    const baseUrl = parseUrl(base);
    const baseType = baseUrl.type;
    switch (inputType) {
      case 1:
        url.hash = baseUrl.hash;
      // fall through
      case 2:
        url.query = baseUrl.query;
      // fall through
      case 3:
      case 4:
        mergePaths(url, baseUrl);
      // fall through
      case 5:
        url.user = baseUrl.user;
        url.host = baseUrl.host;
        url.port = baseUrl.port;
      // fall through
      case 6:
        url.scheme = baseUrl.scheme;
    }
    if (baseType > inputType)
      inputType = baseType;
  }
  normalizePath(url, inputType);
  const queryHash = url.query + url.hash;
  switch (inputType) {
    // This is impossible, because of the empty checks at the start of the function.
    // case UrlType.Empty:
    case 2:
    case 3:
      return queryHash;
    case 4: {
      const path3 = url.path.slice(1);
      if (!path3)
        return queryHash || ".";
      if (isRelative(base || input) && !isRelative(path3)) {
        return "./" + path3 + queryHash;
      }
      return path3 + queryHash;
    }
    case 5:
      return url.path + queryHash;
    default:
      return url.scheme + "//" + url.user + url.host + url.port + url.path + queryHash;
  }
}

// node_modules/@jridgewell/trace-mapping/dist/trace-mapping.mjs
function stripFilename(path3) {
  if (!path3) return "";
  const index = path3.lastIndexOf("/");
  return path3.slice(0, index + 1);
}
function resolver(mapUrl, sourceRoot) {
  const from = stripFilename(mapUrl);
  const prefix = sourceRoot ? sourceRoot + "/" : "";
  return (source) => resolve(prefix + (source || ""), from);
}
var COLUMN = 0;
var SOURCES_INDEX = 1;
var SOURCE_LINE = 2;
var SOURCE_COLUMN = 3;
var NAMES_INDEX = 4;
function maybeSort(mappings, owned) {
  const unsortedIndex = nextUnsortedSegmentLine(mappings, 0);
  if (unsortedIndex === mappings.length) return mappings;
  if (!owned) mappings = mappings.slice();
  for (let i = unsortedIndex; i < mappings.length; i = nextUnsortedSegmentLine(mappings, i + 1)) {
    mappings[i] = sortSegments(mappings[i], owned);
  }
  return mappings;
}
function nextUnsortedSegmentLine(mappings, start) {
  for (let i = start; i < mappings.length; i++) {
    if (!isSorted(mappings[i])) return i;
  }
  return mappings.length;
}
function isSorted(line) {
  for (let j = 1; j < line.length; j++) {
    if (line[j][COLUMN] < line[j - 1][COLUMN]) {
      return false;
    }
  }
  return true;
}
function sortSegments(line, owned) {
  if (!owned) line = line.slice();
  return line.sort(sortComparator2);
}
function sortComparator2(a, b) {
  return a[COLUMN] - b[COLUMN];
}
var found = false;
function binarySearch(haystack, needle, low, high) {
  while (low <= high) {
    const mid = low + (high - low >> 1);
    const cmp = haystack[mid][COLUMN] - needle;
    if (cmp === 0) {
      found = true;
      return mid;
    }
    if (cmp < 0) {
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  found = false;
  return low - 1;
}
function upperBound(haystack, needle, index) {
  for (let i = index + 1; i < haystack.length; index = i++) {
    if (haystack[i][COLUMN] !== needle) break;
  }
  return index;
}
function lowerBound(haystack, needle, index) {
  for (let i = index - 1; i >= 0; index = i--) {
    if (haystack[i][COLUMN] !== needle) break;
  }
  return index;
}
function memoizedState() {
  return {
    lastKey: -1,
    lastNeedle: -1,
    lastIndex: -1
  };
}
function memoizedBinarySearch(haystack, needle, state, key) {
  const { lastKey, lastNeedle, lastIndex } = state;
  let low = 0;
  let high = haystack.length - 1;
  if (key === lastKey) {
    if (needle === lastNeedle) {
      found = lastIndex !== -1 && haystack[lastIndex][COLUMN] === needle;
      return lastIndex;
    }
    if (needle >= lastNeedle) {
      low = lastIndex === -1 ? 0 : lastIndex;
    } else {
      high = lastIndex;
    }
  }
  state.lastKey = key;
  state.lastNeedle = needle;
  return state.lastIndex = binarySearch(haystack, needle, low, high);
}
function parse(map) {
  return typeof map === "string" ? JSON.parse(map) : map;
}
var FlattenMap = function(map, mapUrl) {
  const parsed = parse(map);
  if (!("sections" in parsed)) {
    return new TraceMap(parsed, mapUrl);
  }
  const mappings = [];
  const sources = [];
  const sourcesContent = [];
  const names = [];
  const ignoreList = [];
  recurse(
    parsed,
    mapUrl,
    mappings,
    sources,
    sourcesContent,
    names,
    ignoreList,
    0,
    0,
    Infinity,
    Infinity
  );
  const joined = {
    version: 3,
    file: parsed.file,
    names,
    sources,
    sourcesContent,
    mappings,
    ignoreList
  };
  return presortedDecodedMap(joined);
};
function recurse(input, mapUrl, mappings, sources, sourcesContent, names, ignoreList, lineOffset, columnOffset, stopLine, stopColumn) {
  const { sections } = input;
  for (let i = 0; i < sections.length; i++) {
    const { map, offset } = sections[i];
    let sl = stopLine;
    let sc = stopColumn;
    if (i + 1 < sections.length) {
      const nextOffset = sections[i + 1].offset;
      sl = Math.min(stopLine, lineOffset + nextOffset.line);
      if (sl === stopLine) {
        sc = Math.min(stopColumn, columnOffset + nextOffset.column);
      } else if (sl < stopLine) {
        sc = columnOffset + nextOffset.column;
      }
    }
    addSection(
      map,
      mapUrl,
      mappings,
      sources,
      sourcesContent,
      names,
      ignoreList,
      lineOffset + offset.line,
      columnOffset + offset.column,
      sl,
      sc
    );
  }
}
function addSection(input, mapUrl, mappings, sources, sourcesContent, names, ignoreList, lineOffset, columnOffset, stopLine, stopColumn) {
  const parsed = parse(input);
  if ("sections" in parsed) return recurse(...arguments);
  const map = new TraceMap(parsed, mapUrl);
  const sourcesOffset = sources.length;
  const namesOffset = names.length;
  const decoded = decodedMappings(map);
  const { resolvedSources, sourcesContent: contents, ignoreList: ignores } = map;
  append(sources, resolvedSources);
  append(names, map.names);
  if (contents) append(sourcesContent, contents);
  else for (let i = 0; i < resolvedSources.length; i++) sourcesContent.push(null);
  if (ignores) for (let i = 0; i < ignores.length; i++) ignoreList.push(ignores[i] + sourcesOffset);
  for (let i = 0; i < decoded.length; i++) {
    const lineI = lineOffset + i;
    if (lineI > stopLine) return;
    const out = getLine(mappings, lineI);
    const cOffset = i === 0 ? columnOffset : 0;
    const line = decoded[i];
    for (let j = 0; j < line.length; j++) {
      const seg = line[j];
      const column = cOffset + seg[COLUMN];
      if (lineI === stopLine && column >= stopColumn) return;
      if (seg.length === 1) {
        out.push([column]);
        continue;
      }
      const sourcesIndex = sourcesOffset + seg[SOURCES_INDEX];
      const sourceLine = seg[SOURCE_LINE];
      const sourceColumn = seg[SOURCE_COLUMN];
      out.push(
        seg.length === 4 ? [column, sourcesIndex, sourceLine, sourceColumn] : [column, sourcesIndex, sourceLine, sourceColumn, namesOffset + seg[NAMES_INDEX]]
      );
    }
  }
}
function append(arr, other) {
  for (let i = 0; i < other.length; i++) arr.push(other[i]);
}
function getLine(arr, index) {
  for (let i = arr.length; i <= index; i++) arr[i] = [];
  return arr[index];
}
var LINE_GTR_ZERO = "`line` must be greater than 0 (lines start at line 1)";
var COL_GTR_EQ_ZERO = "`column` must be greater than or equal to 0 (columns start at column 0)";
var LEAST_UPPER_BOUND = -1;
var GREATEST_LOWER_BOUND = 1;
var TraceMap = class {
  constructor(map, mapUrl) {
    const isString = typeof map === "string";
    if (!isString && map._decodedMemo) return map;
    const parsed = parse(map);
    const { version, file, names, sourceRoot, sources, sourcesContent } = parsed;
    this.version = version;
    this.file = file;
    this.names = names || [];
    this.sourceRoot = sourceRoot;
    this.sources = sources;
    this.sourcesContent = sourcesContent;
    this.ignoreList = parsed.ignoreList || parsed.x_google_ignoreList || void 0;
    const resolve3 = resolver(mapUrl, sourceRoot);
    this.resolvedSources = sources.map(resolve3);
    const { mappings } = parsed;
    if (typeof mappings === "string") {
      this._encoded = mappings;
      this._decoded = void 0;
    } else if (Array.isArray(mappings)) {
      this._encoded = void 0;
      this._decoded = maybeSort(mappings, isString);
    } else if (parsed.sections) {
      throw new Error(`TraceMap passed sectioned source map, please use FlattenMap export instead`);
    } else {
      throw new Error(`invalid source map: ${JSON.stringify(parsed)}`);
    }
    this._decodedMemo = memoizedState();
    this._bySources = void 0;
    this._bySourceMemos = void 0;
  }
};
function cast(map) {
  return map;
}
function decodedMappings(map) {
  var _a;
  return (_a = cast(map))._decoded || (_a._decoded = decode(cast(map)._encoded));
}
function originalPositionFor(map, needle) {
  let { line, column, bias } = needle;
  line--;
  if (line < 0) throw new Error(LINE_GTR_ZERO);
  if (column < 0) throw new Error(COL_GTR_EQ_ZERO);
  const decoded = decodedMappings(map);
  if (line >= decoded.length) return OMapping(null, null, null, null);
  const segments = decoded[line];
  const index = traceSegmentInternal(
    segments,
    cast(map)._decodedMemo,
    line,
    column,
    bias || GREATEST_LOWER_BOUND
  );
  if (index === -1) return OMapping(null, null, null, null);
  const segment = segments[index];
  if (segment.length === 1) return OMapping(null, null, null, null);
  const { names, resolvedSources } = map;
  return OMapping(
    resolvedSources[segment[SOURCES_INDEX]],
    segment[SOURCE_LINE] + 1,
    segment[SOURCE_COLUMN],
    segment.length === 5 ? names[segment[NAMES_INDEX]] : null
  );
}
function presortedDecodedMap(map, mapUrl) {
  const tracer = new TraceMap(clone(map, []), mapUrl);
  cast(tracer)._decoded = map.mappings;
  return tracer;
}
function clone(map, mappings) {
  return {
    version: map.version,
    file: map.file,
    names: map.names,
    sourceRoot: map.sourceRoot,
    sources: map.sources,
    sourcesContent: map.sourcesContent,
    mappings,
    ignoreList: map.ignoreList || map.x_google_ignoreList
  };
}
function OMapping(source, line, column, name) {
  return { source, line, column, name };
}
function traceSegmentInternal(segments, memo, line, column, bias) {
  let index = memoizedBinarySearch(segments, column, memo, line);
  if (found) {
    index = (bias === LEAST_UPPER_BOUND ? upperBound : lowerBound)(segments, column, index);
  } else if (bias === LEAST_UPPER_BOUND) index++;
  if (index === -1 || index === segments.length) return -1;
  return index;
}

// src/core/profile/sourceMaps.ts
var nodeReader = { readFile: (file) => (0, import_promises2.readFile)(file, "utf8") };
var CONCURRENCY = 8;
async function applySourceMaps(model, reader = nodeReader) {
  const stats = model.sourceMaps;
  stats.applied = true;
  const byScript = /* @__PURE__ */ new Map();
  const group = (url) => {
    let g = byScript.get(url);
    if (g === void 0) byScript.set(url, g = { functions: [], lines: [] });
    return g;
  };
  const mappable = (f) => {
    const info = model.functions[f];
    return (info.category === "user" || info.category === "dependency") && info.url !== "";
  };
  model.functions.forEach((info, f) => {
    if (mappable(f)) group(info.url).functions.push(f);
  });
  const { lines } = model;
  for (let e = 0; e < lines.count; e++) {
    if (mappable(lines.func[e])) group(model.functions[lines.func[e]].url).lines.push(e);
  }
  const urls = [...byScript.keys()];
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++];
      const map = await loadMap(url, reader, stats.failures);
      if (map !== null) {
        stats.scriptsMapped++;
        mapScript(model, map, byScript.get(url));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, urls.length) }, worker));
  if (model.jsDebug) applyJsDebugLocations(model, byScript);
  if (stats.failures.length > 0) {
    const first = stats.failures[0];
    model.warnings.push({
      code: "SOURCE_MAP_UNUSABLE",
      message: `${stats.failures.length} source map(s) could not be used, so those positions stay in compiled code (first: ${first.url}: ${first.reason}). Rebuild with source maps next to the compiled files.`
    });
  }
}
function mapScript(model, map, group) {
  const stats = model.sourceMaps;
  for (const f of group.functions) {
    const info = model.functions[f];
    if (info.line === null) continue;
    const found2 = mapPoint(map, info.line, (info.column ?? 1) - 1);
    if (found2 === null) continue;
    info.originalFile = found2.file;
    info.originalLine = found2.line;
    info.originalColumn = found2.column;
    stats.functionsMapped++;
  }
  const { lines } = model;
  for (const e of group.lines) {
    const found2 = mapLine(map, lines.line[e]);
    if (found2 === null) continue;
    lines.originalFile[e] = found2.file;
    lines.originalLine[e] = found2.line;
    stats.linesMapped++;
  }
}
function mapPoint(map, line, column) {
  try {
    let m = originalPositionFor(map, { line, column, bias: GREATEST_LOWER_BOUND });
    if (m.source === null) m = originalPositionFor(map, { line, column, bias: LEAST_UPPER_BOUND });
    if (m.source === null) return null;
    return { file: urlToFile(m.source), line: m.line, column: m.column + 1 };
  } catch {
    return null;
  }
}
function mapLine(map, line) {
  try {
    const m = originalPositionFor(map, { line, column: 0, bias: LEAST_UPPER_BOUND });
    if (m.source !== null) return { file: urlToFile(m.source), line: m.line, column: m.column + 1 };
    const segments = decodedMappings(map)[line - 1];
    for (const s of segments ?? []) {
      if (s.length >= 4) {
        const source = map.resolvedSources[s[1]];
        if (source != null) return { file: urlToFile(source), line: s[2] + 1, column: s[3] + 1 };
      }
    }
    return null;
  } catch {
    return null;
  }
}
async function loadMap(url, reader, failures) {
  const scriptFile = urlToFile(url);
  if (!path2.isAbsolute(scriptFile)) return null;
  let code;
  try {
    code = await reader.readFile(scriptFile);
  } catch {
    return null;
  }
  const reference = findSourceMappingUrl(code);
  if (reference === null) {
    const sibling = `${scriptFile}.map`;
    let json;
    try {
      json = await reader.readFile(sibling);
    } catch {
      return null;
    }
    try {
      return new FlattenMap(JSON.parse(json), (0, import_node_url2.pathToFileURL)(sibling).href);
    } catch (err) {
      failures.push({ url, reason: `${sibling}: ${errorMessage(err)}` });
      return null;
    }
  }
  try {
    let json;
    let mapUrl;
    if (reference.startsWith("data:")) {
      json = decodeDataUrl(reference);
      mapUrl = (0, import_node_url2.pathToFileURL)(scriptFile).href;
    } else {
      const mapFile = resolveMapFile(reference, scriptFile);
      if (mapFile === null) throw new Error(`source map location "${reference}" is not a file`);
      json = await reader.readFile(mapFile);
      mapUrl = (0, import_node_url2.pathToFileURL)(mapFile).href;
    }
    return new FlattenMap(JSON.parse(json), mapUrl);
  } catch (err) {
    failures.push({ url, reason: errorMessage(err) });
    return null;
  }
}
function findSourceMappingUrl(code) {
  const needle = "sourceMappingURL=";
  for (let at = code.lastIndexOf(needle); at >= 0; at = at > 0 ? code.lastIndexOf(needle, at - 1) : -1) {
    const before = code.slice(Math.max(0, at - 8), at);
    if (!/\/[/*][#@][ \t]*$/.test(before)) continue;
    const value = /^[^\s'"`*]+/.exec(code.slice(at + needle.length));
    return value ? value[0] : null;
  }
  return null;
}
function decodeDataUrl(url) {
  const comma2 = url.indexOf(",");
  if (comma2 < 0) throw new Error("malformed data: URL");
  const meta = url.slice(5, comma2);
  const data = url.slice(comma2 + 1);
  return /;base64$/i.test(meta) ? Buffer.from(data, "base64").toString("utf8") : decodeURIComponent(data);
}
function resolveMapFile(reference, scriptFile) {
  if (reference.startsWith("file:")) return (0, import_node_url2.fileURLToPath)(reference);
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference)) return null;
  let decoded = reference;
  try {
    decoded = decodeURIComponent(reference);
  } catch {
  }
  return path2.resolve(path2.dirname(scriptFile), decoded);
}
function applyJsDebugLocations(model, byScript) {
  const found2 = model.jsDebug.byPosition;
  const stats = model.sourceMaps;
  for (const group of byScript.values()) {
    for (const f of group.functions) {
      const info = model.functions[f];
      if (info.originalFile !== void 0 || info.line === null) continue;
      const hit = found2.get(positionKey(info.url, info.line - 1, (info.column ?? 1) - 1));
      if (!hit) continue;
      info.originalFile = hit.file;
      info.originalLine = hit.line;
      info.originalColumn = hit.column;
      stats.functionsMapped++;
    }
    for (const e of group.lines) {
      if (model.lines.originalLine[e] > 0) continue;
      const info = model.functions[model.lines.func[e]];
      const hit = found2.get(positionKey(info.url, model.lines.line[e] - 1, 0));
      if (!hit) continue;
      model.lines.originalFile[e] = hit.file;
      model.lines.originalLine[e] = hit.line;
      stats.linesMapped++;
    }
  }
}

// src/core/profile/hotspots.ts
var NEVER_HOT = /* @__PURE__ */ new Set(["root", "idle", "program"]);
function rankHotspots(model, options = {}) {
  const limit = options.limit ?? 20;
  const { functions, functionSelfUs, functionTotalUs, durationUs } = model;
  const candidates = [];
  for (let f = 0; f < functions.length; f++) {
    if (!NEVER_HOT.has(functions[f].category) && functionSelfUs[f] > 0) candidates.push(f);
  }
  candidates.sort((a, b) => functionSelfUs[b] - functionSelfUs[a] || a - b);
  const top = candidates.slice(0, limit);
  const callers = userCallers(model, top.filter((f) => functions[f].category !== "user"));
  return top.map((f, i) => {
    const info = functions[f];
    const position = displayPosition(info);
    return {
      rank: i + 1,
      function: displayName(info),
      file: position.file,
      line: position.line,
      column: position.column,
      selfMs: roundMs(functionSelfUs[f]),
      selfPct: roundPct(functionSelfUs[f], durationUs),
      totalMs: roundMs(functionTotalUs[f]),
      totalPct: roundPct(functionTotalUs[f], durationUs),
      category: info.category,
      package: info.package,
      userCaller: info.category === "user" ? null : callers.get(f) ?? null
    };
  });
}
function userCallers(model, wanted) {
  const result = /* @__PURE__ */ new Map();
  if (wanted.length === 0) return result;
  const { nodes, functions } = model;
  const wantedSet = new Set(wanted);
  const weights = /* @__PURE__ */ new Map();
  const nearestUser = new Int32Array(model.nodeCount).fill(-1);
  for (let k = 0; k < model.nodeCount; k++) {
    const v = nodes.preorder[k];
    const f = nodes.func[v];
    const p = nodes.parent[v];
    const above = p >= 0 ? nearestUser[p] : -1;
    nearestUser[v] = functions[f].category === "user" ? f : above;
    if (above >= 0 && nodes.selfUs[v] > 0 && wantedSet.has(f)) {
      let byCaller = weights.get(f);
      if (byCaller === void 0) weights.set(f, byCaller = /* @__PURE__ */ new Map());
      byCaller.set(above, (byCaller.get(above) ?? 0) + nodes.selfUs[v]);
    }
  }
  for (const f of wanted) {
    let best = -1;
    let bestUs = 0;
    for (const [caller, us] of weights.get(f) ?? []) {
      if (us > bestUs) {
        best = caller;
        bestUs = us;
      }
    }
    if (best < 0) {
      result.set(f, null);
      continue;
    }
    const info = functions[best];
    const position = displayPosition(info);
    result.set(f, { function: displayName(info), file: position.file, line: position.line });
  }
  return result;
}
function displayName(info) {
  return info.name || "(anonymous)";
}
function displayPosition(info) {
  if (info.originalFile !== void 0) {
    return { file: info.originalFile, line: info.originalLine ?? null, column: info.originalColumn ?? null };
  }
  return { file: info.file || info.url, line: info.line, column: info.column };
}

// src/core/profile/index.ts
async function loadProfile(path3, options = {}) {
  const { buf, length } = await readPadded(path3);
  const model = modelFromBuffer(buf, length, options.sourceName ?? path3, options.thread ?? threadFromFileName(path3));
  if (options.sourceMaps !== false) await applySourceMaps(model, options.fs);
  return model;
}
// Annotate the CommonJS export names for ESM import in node:
0 && (module.exports = {
  applySourceMaps,
  buildProfileModel,
  classify,
  displayName,
  displayPosition,
  loadProfile,
  packageName,
  rankHotspots,
  rankLines
});
//# sourceMappingURL=profile.js.map
