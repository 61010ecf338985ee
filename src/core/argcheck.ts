// A JSON Schema checker for the subset tool parameters use (type, properties, required,
// additionalProperties, enum, const, items, bounds), interpreted as it walks: no code is
// generated, so the first tool call of a process costs nothing extra (Ajv took 100–300 ms to load
// and compile). It reports errors in Ajv's shape and coerces scalars as Ajv's coerceTypes does.
// Contract: compileSubset returns null for a schema outside the subset; schema.ts then uses Ajv.

import type { JsonSchema } from '../types/providers.js';

/** One problem, shaped like Ajv's errors so one function words both. */
export type SchemaError = { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string };

/** Checks data in place (coercing scalars); returns the problems, [] when valid. */
export type SubsetCheck = (data: unknown) => SchemaError[];

type Node = (value: unknown, path: string, errors: SchemaError[], set: (v: unknown) => void) => void;

// Annotations change nothing; `$schema` and `format` are ignored as by Ajv without ajv-formats.
const IGNORED = new Set(['description', 'title', 'default', 'examples', '$schema', '$comment', 'format', 'deprecated', 'readOnly', 'writeOnly']);
const CHECKED = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** A checker for `schema`, or null when it uses anything beyond the subset. */
export function compileSubset(schema: JsonSchema, coerce: boolean): SubsetCheck | null {
  const root = node(schema, coerce);
  if (!root) return null;
  return (data) => {
    const errors: SchemaError[] = [];
    root(data, '', errors, () => {});
    return errors;
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number';

function node(schema: unknown, coerce: boolean): Node | null {
  if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return () => {};
  if (!isObject(schema)) return null;
  for (const key of Object.keys(schema)) if (!CHECKED.has(key) && !IGNORED.has(key)) return null;
  const types = schema.type === undefined ? undefined : ([] as unknown[]).concat(schema.type);
  if (types && !types.every((t) => typeof t === 'string' && TYPES.has(t))) return null;
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) return null;
  const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems'];
  if (bounds.some((b) => schema[b] !== undefined && !isNumber(schema[b]))) return null;
  const object = objectNode(schema, coerce);
  const items = schema.items === undefined ? undefined : node(schema.items, coerce);
  if (object === null || items === null) return null;

  return (value, path, errors, set) => {
    if (types && !types.some((t) => hasType(value, t as string))) {
      const coerced = coerce ? coerceTo(value, types as string[]) : NOT_COERCED;
      // Like Ajv, the keywords of the value's actual type are still checked (0.5 for an integer ≥ 1).
      if (coerced === NOT_COERCED) errors.push(error(path, 'type', { type: types.join(',') }, `must be ${types.join(',')}`));
      else set((value = coerced));
    }
    if (schema.enum && !(schema.enum as unknown[]).some((e) => equal(e, value))) {
      errors.push(error(path, 'enum', { allowedValues: schema.enum }, 'must be equal to one of the allowed values'));
    }
    if (schema.const !== undefined && !equal(schema.const, value)) errors.push(error(path, 'const', { allowedValue: schema.const }, 'must be equal to constant'));
    if (isNumber(value)) checkNumber(schema, value, path, errors);
    if (typeof value === 'string') checkLength(schema, [...value].length, 'Length', 'characters', path, errors);
    if (Array.isArray(value)) {
      checkLength(schema, value.length, 'Items', 'items', path, errors);
      if (items) value.forEach((item, i) => items(item, `${path}/${i}`, errors, (v) => (value[i] = v)));
    }
    if (isObject(value) && object) object(value, path, errors);
  };
}

/** required, properties and additionalProperties of an object schema; undefined when it has none. */
function objectNode(schema: Record<string, unknown>, coerce: boolean): ((value: Record<string, unknown>, path: string, errors: SchemaError[]) => void) | null | undefined {
  const { properties = {}, required = [], additionalProperties } = schema;
  if (!isObject(properties) || !Array.isArray(required) || !required.every((r) => typeof r === 'string')) return null;
  const props = new Map<string, Node>();
  for (const [name, sub] of Object.entries(properties)) {
    const checker = node(sub, coerce);
    if (!checker) return null;
    props.set(name, checker);
  }
  const extra = additionalProperties === undefined || additionalProperties === true ? undefined : additionalProperties === false ? false : node(additionalProperties, coerce);
  if (extra === null) return null;
  if (props.size === 0 && required.length === 0 && extra === undefined) return undefined;
  return (value, path, errors) => {
    for (const name of required as string[]) {
      if (!Object.hasOwn(value, name)) errors.push(error(path, 'required', { missingProperty: name }, `must have required property '${name}'`));
    }
    for (const name of Object.keys(value)) {
      if (props.has(name)) continue;
      if (extra === false) errors.push(error(path, 'additionalProperties', { additionalProperty: name }, 'must NOT have additional properties'));
      else extra?.(value[name], `${path}/${escape(name)}`, errors, (v) => (value[name] = v));
    }
    for (const [name, check] of props) {
      if (Object.hasOwn(value, name)) check(value[name], `${path}/${escape(name)}`, errors, (v) => (value[name] = v));
    }
  };
}

function checkNumber(schema: Record<string, unknown>, value: number, path: string, errors: SchemaError[]): void {
  const limits: [string, string, (limit: number) => boolean][] = [
    ['maximum', '<=', (l) => value <= l],
    ['minimum', '>=', (l) => value >= l],
    ['exclusiveMaximum', '<', (l) => value < l],
    ['exclusiveMinimum', '>', (l) => value > l],
  ];
  for (const [keyword, comparison, ok] of limits) {
    const limit = schema[keyword];
    if (isNumber(limit) && !ok(limit)) errors.push(error(path, keyword, { comparison, limit }, `must be ${comparison} ${limit}`));
  }
}

function checkLength(schema: Record<string, unknown>, length: number, what: 'Length' | 'Items', unit: string, path: string, errors: SchemaError[]): void {
  const max = schema[`max${what}`];
  const min = schema[`min${what}`];
  if (isNumber(max) && length > max) errors.push(error(path, `max${what}`, { limit: max }, `must NOT have more than ${max} ${unit}`));
  if (isNumber(min) && length < min) errors.push(error(path, `min${what}`, { limit: min }, `must NOT have fewer than ${min} ${unit}`));
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return isNumber(value) && Number.isFinite(value);
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

const NOT_COERCED = Symbol('not coerced');

/** Ajv's coerceTypes for scalars: the first listed type the value converts to. */
function coerceTo(value: unknown, types: string[]): unknown {
  for (const type of types) {
    const v = coerceOne(value, type);
    if (v !== NOT_COERCED) return v;
  }
  return NOT_COERCED;
}

function coerceOne(value: unknown, type: string): unknown {
  switch (type) {
    case 'string':
      return isNumber(value) || typeof value === 'boolean' ? String(value) : value === null ? '' : NOT_COERCED;
    case 'number':
    case 'integer': {
      const n = typeof value === 'boolean' ? Number(value) : value === null ? 0 : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) && (type === 'number' || Number.isInteger(n)) ? n : NOT_COERCED;
    }
    case 'boolean':
      return value === 'true' || value === 1 ? true : value === 'false' || value === 0 || value === null ? false : NOT_COERCED;
    case 'null':
      return value === '' || value === 0 || value === false ? null : NOT_COERCED;
    default:
      return NOT_COERCED;
  }
}

function error(instancePath: string, keyword: string, params: Record<string, unknown>, message: string): SchemaError {
  return { instancePath, keyword, params, message };
}

/** JSON Pointer escaping of one path segment, as Ajv's instancePath has it. */
const escape = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
