// The code index on the shapes real non-TypeScript code takes: C prototypes and typedefs of
// pointers, macros, comments between a header and its body, Java overloads, CRLF and BOM files.
// Each case is what a real file (CPython's library, glibc's headers, zlib, the JDK) showed.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractFile } from '../src/codeindex/extract.js';
import { openCodeIndex } from '../src/codeindex/index.js';
import { grammarFor } from '../src/codeindex/parsefile.js';
import { qualifiedName, type FileRecord } from '../src/codeindex/model.js';
import { workspace } from './tools-helpers.js';

const meta = { size: 0, mtimeMs: 0, hash: '' };

async function parse(lang: string, path: string, text: string): Promise<FileRecord> {
  return extractFile(path, text, lang, await grammarFor(lang), meta);
}

/** `kind Container.name@line sig`, the way a reader checks a definition list. */
const defs = (r: FileRecord) => r.symbols.map((s) => `${s.kind} ${qualifiedName(s)}@${s.line} ${s.sig}${s.decl ? ' [decl]' : ''}`);

async function run(files: Record<string, string>, calls: [string, Record<string, unknown>][]): Promise<string[]> {
  const ctx = await workspace(files);
  const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
  await handle.ready();
  const out: string[] = [];
  for (const [tool, args] of calls) out.push((await handle.tools.find((t) => t.name === tool)!.run(args, ctx)).output);
  await handle.close();
  return out;
}

describe('definitions in real-world shapes', () => {
  it('a comment between a header and its body is not part of the signature; a ruled comment line is no doc', async () => {
    const py = await parse('python', 'argparse.py', [
      'class HelpFormatter(object):  # formats help',
      '    def __init__(self, prog, width=None):',
      '        # default setting for width',
      '        self.prog = prog',
      '',
      'def _recursive_repr(user_function):',
      '    # Decorator to make a repr function return "..." for a recursive',
      '    # call.',
      '    return user_function',
    ].join('\n'));
    expect(defs(py)).toEqual(['class HelpFormatter@1 (object)', 'method HelpFormatter.__init__@2 (self, prog, width=None)', 'function _recursive_repr@6 (user_function)']);
    const ruled = await parse('python', 'argparse.py', ['class F:', '    # ===============================', '    # Section and indentation methods', '    # ===============================', '    def _indent(self):', '        pass'].join('\n'));
    expect(ruled.symbols[1]).toMatchObject({ name: '_indent', doc: 'Section and indentation methods' });
    const c = await parse('cpp', 'a.c', 'int f(void) /* never fails */\n{\n  return 0;\n}\n');
    expect(defs(c)).toEqual(['function f@1 (void)']);
  });

  it('C: prototypes and definitions returning pointers, function pointer typedefs, macros', async () => {
    const r = await parse('cpp', 'str.h', [
      'extern void *memcpy (void *__restrict __dest, const void *__restrict __src, size_t __n) __THROW;',
      'char **split(const char *s, char sep);',
      'static char **split_all(const char *s) { return split(s, 0); }',
      'typedef int (*cmp_fn)(const void *, const void *);',
      'typedef struct node *node_ptr;',
      '#define NEXT() (have ? 0 : (have = in(indp, &next)), \\',
      '    last = have ? (have--, (int)(*next++)) : -1)',
      '#define MAX_WBITS 15 /* 32K LZ77 window */',
      '#define STR_H',
      '#define FLUSHCODE() \\',
      '    do { left = 0; } while (0)',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'function memcpy@1 (void *__restrict __dest, const void *__restrict __src, size_t __n) [decl]',
      'function split@2 (const char *s, char sep) [decl]',
      'function split_all@3 (const char *s)',
      'type cmp_fn@4 (const void *, const void *)',
      'type node_ptr@5 ',
      'macro NEXT@6 ()',
      'const MAX_WBITS@8 = 15',
      'macro FLUSHCODE@10 ()',
    ]);
  });
});

describe('the tools on real-world shapes', () => {
  it('Java: a static call to an overloaded method is certain, not ambiguous', async () => {
    const [callers] = await run(
      {
        'util/Objects.java': [
          'package util;',
          'public final class Objects {',
          '  public static <T> T requireNonNull(T obj) { if (obj == null) throw new NullPointerException(); return obj; }',
          '  public static <T> T requireNonNull(T obj, String message) { if (obj == null) throw new NullPointerException(message); return obj; }',
          '}',
        ].join('\n'),
        'util/Box.java': ['package util;', 'public class Box {', '  private Object v;', '  public Box(Object v) { this.v = Objects.requireNonNull(v, "v"); }', '}'].join('\n'),
      },
      [['code_refs', { symbol: 'util/Objects.java:3', direction: 'callers' }]],
    );
    expect(callers).toBe(['callers of Objects.requireNonNull (util/Objects.java:3):', '  util/Box.java:4 Box.Box'].join('\n'));
  });

  it('code_symbol shows a CRLF file with a BOM as read_file does: no BOM, no carriage returns', async () => {
    const [shown] = await run({ 'win.py': '\ufeffdef first(a):\r\n    return a\r\n' }, [['code_symbol', { name: 'first' }]]);
    expect(shown).toBe(['win.py:1-2 function first(a)', '     1\tdef first(a):', '     2\t    return a'].join('\n'));
  });
});
