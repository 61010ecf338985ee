// JSON Schema checks: tool arguments (errors worded for the model) and structured output
// (--output-schema, offered to the model as the submit_result tool). Tool arguments go through
// argcheck.ts, which generates no code; Ajv is loaded only for what it cannot check (a schema
// beyond its subset, and structured output). Checkers are cached per schema object.

import { compileSubset, type SchemaError, type SubsetCheck } from './argcheck.js';
import { toolError, type Tool } from '../types/tools.js';
import type { JsonSchema } from '../types/providers.js';

type Validate = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };
type AjvInstance = { compile(schema: JsonSchema): Validate };

let instances: Promise<{ lenient: AjvInstance; strict: AjvInstance }> | undefined;

async function ajv() {
  instances ??= import('ajv').then((m) => {
    const Ajv = (m.default as unknown as { default?: unknown }).default ?? m.default;
    const make = (coerceTypes: boolean) =>
      new (Ajv as new (o: object) => AjvInstance)({ allErrors: true, strict: false, coerceTypes });
    // Tool arguments may coerce ("30" for 30): models do that often and it is harmless.
    return { lenient: make(true), strict: make(false) };
  });
  return instances;
}

function ajvProblem(e: SchemaError): string {
  const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
  switch (e.keyword) {
    case 'required':
      return `${at ? at + '.' : ''}${String(e.params.missingProperty)} is required`;
    case 'additionalProperties':
      return `unknown argument ${at ? at + '.' : ''}${String(e.params.additionalProperty)}`;
    case 'type':
      return `${at || 'the arguments'} must be ${String(e.params.type)}`;
    case 'enum':
      return `${at} must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${at || 'the value'} ${e.message ?? 'is invalid'}`;
  }
}

const compiled = { lenient: new WeakMap<JsonSchema, SubsetCheck>(), strict: new WeakMap<JsonSchema, SubsetCheck>() };

/**
 * Checks `data` against `schema`. Returns null when valid, else one line naming every problem.
 * `lenient` coerces scalar types in place (for tool arguments); structured output is strict.
 */
export async function validate(schema: JsonSchema, data: unknown, lenient: boolean): Promise<string | null> {
  const which = lenient ? 'lenient' : 'strict';
  let check = compiled[which].get(schema);
  if (!check) {
    check = (lenient ? compileSubset(schema, true) : null) ?? ajvCheck((await ajv())[which].compile(schema));
    compiled[which].set(schema, check);
  }
  const errors = check(data);
  return errors.length ? [...new Set(errors.map(ajvProblem))].join('; ') : null;
}

const ajvCheck = (validate: Validate): SubsetCheck => (data) => (validate(data) ? [] : (validate.errors ?? []));

/** Tool arguments: an error message for the model, or null. Coerces scalars in place. */
export async function validateArgs(schema: JsonSchema, args: unknown): Promise<string | null> {
  const problem = await validate(schema, args, true);
  return problem && `invalid arguments: ${problem}`;
}

export const SUBMIT_RESULT = 'submit_result';

/**
 * The final-answer tool for structured output: its parameters are the user's schema (wrapped in
 * an object when the schema is not one, since both wire formats need object parameters).
 */
export function submitResultTool(schema: JsonSchema): Tool<Record<string, unknown>> {
  const wrapped = schema.type !== 'object';
  const parameters: JsonSchema = wrapped
    ? { type: 'object', properties: { result: schema }, required: ['result'], additionalProperties: false }
    : schema;
  return {
    name: SUBMIT_RESULT,
    description: 'Submit the final answer as JSON matching this schema. Call it once, when the task is done.',
    parameters,
    kind: 'meta',
    async run(args) {
      const value = wrapped ? args.result : args;
      const problem = await validate(schema, value, false);
      if (problem) return toolError(`The result does not match the schema: ${problem}. Call submit_result again with a corrected value.`);
      return { output: 'Result accepted.', summary: { key: 'ok' }, endTurn: { structured: value, text: JSON.stringify(value) } };
    },
  };
}
