// The code-free argument checker against Ajv itself: for every tool's schema and a spread of
// arguments (valid, missing, unknown, mistyped but coercible, out of range, nested), the same
// words for the model and the same coerced arguments. Schemas beyond the subset go to Ajv, and a
// headless run with a tool call never loads Ajv at all.
import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import { compileSubset } from '../src/core/argcheck.js';
import { validateArgs } from '../src/core/schema.js';
import { fixedRequest } from '../src/app/toolset.js';
import { coreTools } from '../src/tools/index.js';
import type { JsonSchema } from '../src/types/providers.js';
import { useCliFixture } from './fixtures.js';

const Ajv = ((AjvModule as unknown as { default?: typeof AjvModule }).default ?? AjvModule) as unknown as new (o: object) => { compile(s: JsonSchema): ((d: unknown) => boolean) & { errors?: unknown[] | null } };
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: true });

/** What Ajv says of `data` (a copy, coerced in place), worded as validateArgs words it. */
async function viaAjv(schema: JsonSchema, data: unknown): Promise<{ problem: string | null; data: unknown }> {
  const copy = structuredClone(data);
  // allOf (beyond the subset) sends the same schema to Ajv.
  const forced = { allOf: [schema] };
  const problem = await validateArgs(forced, copy);
  return { problem, data: copy };
}

async function viaSubset(schema: JsonSchema, data: unknown): Promise<{ problem: string | null; data: unknown }> {
  const copy = structuredClone(data);
  const problem = await validateArgs(schema, copy);
  return { problem, data: copy };
}

const schemas: [string, JsonSchema][] = [
  ...fixedRequest('/tmp/project').tools.map((t): [string, JsonSchema] => [t.name, t.parameters]),
  ['bounds', { type: 'object', properties: { s: { type: 'string', minLength: 2, maxLength: 3 }, a: { type: 'array', items: { type: ['integer', 'null'] }, minItems: 1, maxItems: 2 }, x: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, c: { const: 'k' } }, additionalProperties: { type: 'boolean' } }],
];

const samples: unknown[] = [
  {},
  { path: 'a.txt' },
  { path: 'a.txt', offset: '30', limit: 5 },
  { path: 'a.txt', offset: 0, limit: 99999 },
  { path: 7, offset: 'ten', extra: true },
  { path: 'a.txt', content: 3 },
  { path: 'a.txt', old_string: 'x', new_string: 'y', replace_all: 'true' },
  { command: 'ls', timeout: '5', background: 1 },
  { command: 'ls', timeout: 0.5, description: null },
  { pattern: '**/*.ts', path: 'src', ignore_case: 'false' },
  { pattern: 'x', glob: ['*.ts'] },
  { items: [{ content: 'a', status: 'done' }, { content: 'b', status: 'maybe' }, { content: 3 }] },
  { items: 'none' },
  { s: 'é', a: [1, '2', null, 'x'], x: 1, c: 'k', other: 'true' },
  { s: 'long', a: [], x: '0.5', c: 'q', flag: 3 },
  'not an object',
  null,
  [1, 2],
];

describe('the subset checker', () => {
  it.each(schemas)('words %s problems like Ajv and coerces the same way', async (_name, schema) => {
    expect(compileSubset(schema, true)).not.toBeNull();
    for (const data of samples) expect(await viaSubset(schema, data)).toEqual(await viaAjv(schema, data));
  });

  it('leaves schemas beyond the subset to Ajv', async () => {
    const schema = { type: 'object', properties: { n: { oneOf: [{ type: 'integer' }, { type: 'string', pattern: '^[a-z]+$' }] } }, required: ['n'] };
    expect(compileSubset(schema, true)).toBeNull();
    expect(await validateArgs(schema, { n: 'abc' })).toBeNull();
    expect(await validateArgs(schema, { n: 'ABC' })).toMatch(/^invalid arguments: /);
    expect(ajv.compile(schema)({ n: 2 })).toBe(true);
  });

  it('words the common problems for the model', async () => {
    const read = coreTools().find((t) => t.name === 'read_file')!.parameters;
    expect(await validateArgs(read, { offset: 0, limit: 'many', nope: 1 })).toBe(
      'invalid arguments: path is required; unknown argument nope; offset must be >= 1; limit must be integer',
    );
  });
});

const { server, run } = await useCliFixture('feiyu-argcheck', {});

describe('a headless run with a tool call', () => {
  it('checks the arguments without loading Ajv', async () => {
    server.enqueue({ toolCalls: [{ name: 'list_files', input: { pattern: '*' } }] }, { text: 'done' });
    // NODE_DEBUG=module names every CommonJS module loaded; Ajv is one.
    const r = await run(['-p', 'list'], { env: { NODE_DEBUG: 'module' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toContain('MODULE'); // the debug output is there to search
    expect(r.stderr).not.toMatch(/node_modules\/ajv\//);
  });
});
