/**
 * Sample labels: `--label K=V` keeps the samples that carry them (the same key given twice: either
 * value; different keys: all of them), and a per-label breakdown says how the shown value splits across
 * each label's values (`trace endpoint`, `span id`, Pyroscope's tags…).
 */
import { invalidOption } from '../common/errors';
import type { DecodedPprof } from './decode';

export interface LabelFilter {
  key: string;
  value: string;
}

export interface LabelValueShare {
  value: string;
  /** In the model's unit (µs, bytes or objects). */
  amount: number;
  pct: number;
}

export interface LabelBreakdown {
  key: string;
  /** Heaviest first, at most MAX_SHOWN. */
  values: LabelValueShare[];
  /** Distinct values seen (counted up to MAX_TRACKED). */
  distinct: number;
  /** Share of the shown total carried by samples with this label at all. */
  coveragePct: number;
}

export function parseLabelFilter(text: string): LabelFilter {
  const eq = text.indexOf('=');
  if (eq <= 0) throw invalidOption(`--label ${text}: expected KEY=VALUE, e.g. --label "trace endpoint=GET /orders"`);
  return { key: text.slice(0, eq), value: text.slice(eq + 1) };
}

/** Values of one label a breakdown keeps track of; more distinct values (span ids) are only counted. */
const MAX_TRACKED = 1000;
const MAX_SHOWN = 10;
const MAX_KEYS = 12;

/** A label's value as text: the string, or the number with its unit. */
export function labelValue(d: DecodedPprof, k: number): string {
  if (d.labelStr[k] > 0) return d.string(d.labelStr[k], 'a label');
  const unit = d.labelNumUnit[k] > 0 ? d.string(d.labelNumUnit[k], 'a label unit') : '';
  return unit ? `${d.labelNum[k]} ${unit}` : String(d.labelNum[k]);
}

/** Per label key: amounts by value, keyed without decoding (a string's table index, or the number itself). */
interface KeyTotals {
  key: string;
  byString: Map<number, number>;
  byNumber: Map<number, number>;
  /** The unit of the key's numeric values (string index; 0: none). */
  numUnit: number;
  distinct: number;
  total: number;
}

export class LabelIndex {
  private readonly wanted = new Map<string, Set<string>>();
  private readonly byKey = new Map<number, KeyTotals>();
  private total = 0;

  constructor(private readonly d: DecodedPprof, filters: LabelFilter[]) {
    for (const f of filters) {
      let set = this.wanted.get(f.key);
      if (!set) this.wanted.set(f.key, (set = new Set()));
      set.add(f.value);
    }
  }

  get filtering(): boolean {
    return this.wanted.size > 0;
  }

  /** Whether sample s passes the filters. */
  matches(s: number): boolean {
    if (!this.wanted.size) return true;
    const d = this.d;
    let matched = 0;
    for (const [key, values] of this.wanted) {
      for (let k = d.sampleLabelStart[s]; k < d.sampleLabelStart[s + 1]; k++) {
        if (d.string(d.labelKey[k], 'a label key') === key && values.has(labelValue(d, k))) {
          matched++;
          break;
        }
      }
    }
    return matched === this.wanted.size;
  }

  /**
   * Counts sample s (already kept) with `amount` toward each of its labels' values. Runs once per sample
   * (millions in a fleet profile): values are keyed as they are stored, turned into text only for the
   * breakdown, and a key past MAX_TRACKED distinct values (span ids, timestamps) is only counted.
   */
  add(s: number, amount: number): void {
    const d = this.d;
    this.total += amount;
    for (let k = d.sampleLabelStart[s]; k < d.sampleLabelStart[s + 1]; k++) {
      const keyIndex = d.labelKey[k];
      let e = this.byKey.get(keyIndex);
      if (!e) this.byKey.set(keyIndex, (e = { key: d.string(keyIndex, 'a label key'), byString: new Map(), byNumber: new Map(), numUnit: d.labelNumUnit[k], distinct: 0, total: 0 }));
      e.total += amount;
      if (e.distinct >= MAX_TRACKED) continue;
      const str = d.labelStr[k];
      const map = str > 0 ? e.byString : e.byNumber;
      const value = str > 0 ? str : d.labelNum[k];
      const before = map.get(value);
      if (before !== undefined) map.set(value, before + amount);
      else {
        map.set(value, amount);
        e.distinct++;
      }
    }
  }

  /** Labels that say something (a few values, each a visible share) first; identifiers (span ids) last. */
  breakdown(): LabelBreakdown[] {
    const total = this.total || 1;
    const d = this.d;
    const rows = [...this.byKey.values()].map((e) => {
      const unit = e.numUnit > 0 ? ` ${d.string(e.numUnit, 'a label unit')}` : '';
      const values = [
        ...[...e.byString].map(([i, amount]) => [d.string(i, 'a label'), amount] as const),
        ...[...e.byNumber].map(([n, amount]) => [`${n}${unit}`, amount] as const),
      ];
      return {
        key: e.key,
        distinct: e.distinct,
        coveragePct: Math.round((1000 * e.total) / total) / 10,
        values: values.sort((a, b) => b[1] - a[1]).slice(0, MAX_SHOWN).map(([value, amount]) => ({ value, amount, pct: Math.round((1000 * amount) / total) / 10 })),
      };
    });
    rows.sort((a, b) => (a.distinct > 100 ? 1 : 0) - (b.distinct > 100 ? 1 : 0) || b.coveragePct - a.coveragePct || a.key.localeCompare(b.key));
    return rows.slice(0, MAX_KEYS);
  }

  /** Filter keys no sample carries at all (the filter then keeps nothing; say which key is unknown). */
  missingKeys(): string[] {
    const d = this.d;
    const present = new Set<string>();
    for (let k = 0; k < d.labelKey.length; k++) present.add(d.string(d.labelKey[k], 'a label key'));
    return [...this.wanted.keys()].filter((key) => !present.has(key));
  }
}
