import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { coreTools } from '../src/tools/index.js';
import { specOf } from '../src/types/tools.js';

describe('coreTools', () => {
  it('has the six tools in a stable order, each with a closed schema', () => {
    const tools = coreTools();
    expect(tools.map((t) => [t.name, t.kind])).toEqual([
      ['read_file', 'read'], ['list_files', 'read'], ['search', 'read'], ['write_file', 'write'], ['edit_file', 'write'], ['bash', 'exec'],
    ]);
    for (const tool of tools) {
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      const required = (tool.parameters.required as string[] | undefined) ?? [];
      expect(required.every((name) => name in (tool.parameters.properties as object))).toBe(true);
    }
  });

  it('costs at most 800 o200k tokens for all six, as sent to the model', () => {
    const specs = coreTools().map(specOf);
    expect(encode(JSON.stringify(specs)).length).toBeLessThanOrEqual(800);
  });

  it('names the argument the interface shows', () => {
    const shown = coreTools().map((t) => t.describe?.({ path: 'src/a.ts', pattern: 'x', command: 'ls' }).title);
    expect(shown).toEqual(['src/a.ts', 'src/a.ts x', 'x', 'src/a.ts', 'src/a.ts', 'ls']);
  });
});
