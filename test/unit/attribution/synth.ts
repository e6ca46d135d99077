/**
 * Builds small .cpuprofile documents by hand for attribution tests: a tree of frames, each with its
 * self ticks per line (positionTicks); every tick is one 1000 µs sample. Positions are 1-based here and
 * written 0-based, as V8 does. Sources are real files under test/fixtures/attribution.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildProfileModel, type ProfileModel } from '../../../src/core/profile';

export const SRC = path.resolve(__dirname, '../../fixtures/attribution');
export const file = (rel: string) => path.join(SRC, rel);
export const url = (rel: string) => (rel.startsWith('node:') ? rel : pathToFileURL(file(rel)).href);

export interface Frame {
  name: string;
  /** Fixture-relative path, `node:…`, or '' for natives and pseudo-frames. */
  script: string;
  /** 1-based line and column of the function's `(` as V8 reports it; 0 when none. */
  line: number;
  column: number;
  /** Self ticks by 1-based line (each tick = 1 ms). */
  ticks?: Record<number, number>;
  /** Self ticks without line info (natives). */
  self?: number;
  children?: Frame[];
}

/** 1-based [line, column] of the `(` that follows `function <name>` / `<name>(` on the line matching `pattern`. */
export function anchor(rel: string, pattern: RegExp | string): [number, number] {
  const lines = fs.readFileSync(file(rel), 'utf8').split('\n');
  const i = lines.findIndex((l) => (typeof pattern === 'string' ? l.includes(pattern) : pattern.test(l)));
  if (i < 0) throw new Error(`${pattern} not in ${rel}`);
  const text = lines[i];
  const at = typeof pattern === 'string' ? text.indexOf(pattern) : text.search(pattern);
  return [i + 1, text.indexOf('(', at) + 1];
}

/** 1-based line of the first line containing `text`. */
export function lineOf(rel: string, text: string): number {
  const i = fs.readFileSync(file(rel), 'utf8').split('\n').findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`${text} not in ${rel}`);
  return i + 1;
}

export function fn(name: string, script: string, line: number, column: number, rest: Partial<Frame> = {}): Frame {
  return { name, script, line, column, ...rest };
}

export function synthProfile(frames: Frame[]): string {
  const nodes: object[] = [];
  const samples: number[] = [];
  let nextId = 1;
  const visit = (f: Frame): number => {
    const id = nextId++;
    const node: Record<string, unknown> = {
      id,
      callFrame: { functionName: f.name, scriptId: f.script ? String(Math.abs(hash(f.script))) : '0', url: f.script ? url(f.script) : '', lineNumber: f.line - 1, columnNumber: f.column - 1 },
      hitCount: 0,
    };
    nodes.push(node);
    let hits = 0;
    const ticks = Object.entries(f.ticks ?? {}).map(([line, n]) => ({ line: Number(line), ticks: n }));
    for (const t of ticks) { hits += t.ticks; for (let i = 0; i < t.ticks; i++) samples.push(id); }
    for (let i = 0; i < (f.self ?? 0); i++) { hits++; samples.push(id); }
    node.hitCount = hits;
    if (ticks.length) node.positionTicks = ticks;
    const children = (f.children ?? []).map(visit);
    if (children.length) node.children = children;
    return id;
  };
  visit({ name: '(root)', script: '', line: 0, column: 0, children: frames });
  const timeDeltas = samples.map(() => 1000);
  return JSON.stringify({ nodes, startTime: 0, endTime: samples.length * 1000 + 1000, samples, timeDeltas });
}

export function synthModel(frames: Frame[]): ProfileModel {
  return buildProfileModel(synthProfile(frames), { sourceName: 'synth.cpuprofile' });
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h || 1;
}
