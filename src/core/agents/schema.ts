/**
 * The JSON Schema subset Hotpath's tools declare (objects of strings, numbers, booleans, arrays and
 * string maps), and the one validator every surface uses — MCP (as the SDK's validator) and VS Code's
 * tools — so a wrong argument gets the same answer everywhere: what is wrong and what is valid. Unknown
 * arguments are refused, never dropped (a dropped filter gives a confidently wrong answer).
 */

export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  default?: unknown;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; message: string };

const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v === 'string' ? `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}` : `${typeof v} ${JSON.stringify(v)}`);

function describe(s: JsonSchema): string {
  if (s.enum) return `one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  const range = s.minimum !== undefined && s.maximum !== undefined ? ` from ${s.minimum} to ${s.maximum}` : s.minimum !== undefined ? ` of at least ${s.minimum}` : s.maximum !== undefined ? ` of at most ${s.maximum}` : '';
  switch (s.type) {
    case 'integer': return `an integer${range}`;
    case 'number': return `a number${range}`;
    case 'string': return s.minLength ? 'a non-empty string' : 'a string';
    case 'boolean': return 'true or false';
    case 'array': return `an array${s.items ? ` of ${describe(s.items).replace(/^an? /, '')}s` : ''}${s.minItems ? ` (at least ${s.minItems})` : ''}${s.maxItems ? ` (at most ${s.maxItems})` : ''}`;
    case 'object': return s.properties ? `an object with ${Object.keys(s.properties).join(', ')}` : 'an object of strings';
    default: return 'a value';
  }
}

/** The first problem with `value` at `at` (a path like `requests[2].weight`), or undefined. */
function check(value: unknown, s: JsonSchema, at: string): string | undefined {
  const wrong = () => `\`${at}\` must be ${describe(s)}, not ${kind(value)}.`;
  switch (s.type) {
    case 'string':
      if (typeof value !== 'string' || (s.minLength && value.length < s.minLength)) return wrong();
      if (s.enum && !s.enum.includes(value)) return wrong();
      return undefined;
    case 'boolean': return typeof value === 'boolean' ? undefined : wrong();
    case 'number': case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value) || (s.type === 'integer' && !Number.isInteger(value))) return wrong();
      if ((s.minimum !== undefined && value < s.minimum) || (s.maximum !== undefined && value > s.maximum)) return wrong();
      return undefined;
    case 'array':
      if (!Array.isArray(value) || (s.minItems !== undefined && value.length < s.minItems) || (s.maxItems !== undefined && value.length > s.maxItems)) return wrong();
      for (let i = 0; i < value.length; i++) {
        const e = s.items ? check(value[i], s.items, `${at}[${i}]`) : undefined;
        if (e) return e;
      }
      return undefined;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrong();
      const o = value as Record<string, unknown>;
      const props = s.properties ?? {};
      for (const key of Object.keys(o)) {
        if (key in props) {
          const e = check(o[key], props[key], at ? `${at}.${key}` : key);
          if (e) return e;
        } else if (s.additionalProperties === false || s.additionalProperties === undefined && s.properties) {
          const valid = Object.keys(props);
          return `Unknown argument \`${at ? `${at}.` : ''}${key.length > 60 ? `${key.slice(0, 60)}…` : key}\`. Valid ${at ? `keys of \`${at}\`` : 'arguments'}: ${valid.join(', ')}.`;
        } else if (typeof s.additionalProperties === 'object') {
          const e = check(o[key], s.additionalProperties, `${at ? `${at}.` : ''}${key}`);
          if (e) return e;
        }
      }
      for (const key of s.required ?? []) {
        if (o[key] === undefined) return `Missing \`${at ? `${at}.` : ''}${key}\`: ${props[key]?.description ?? describe(props[key] ?? {})}`;
      }
      return undefined;
    }
    default: return undefined;
  }
}

/** Validates a tool's arguments against its schema; the message names the argument and what is valid. */
export function validateArguments<T>(schema: JsonSchema, value: unknown): Validation<T> {
  const problem = check(value ?? {}, schema, '');
  return problem ? { ok: false, message: problem } : { ok: true, value: (value ?? {}) as T };
}
