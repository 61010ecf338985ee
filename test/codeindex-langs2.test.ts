// The code index on the shapes real Go, Ruby and Rust code takes. Each case is what a real file
// showed: Go's standard library (net/http, runtime), Ruby's (net/http, csv, set), and crates
// Debian ships as source (regex, serde, syn).
import { describe, expect, it } from 'vitest';
import { extractFile } from '../src/codeindex/extract.js';
import { grammarFor } from '../src/codeindex/parsefile.js';
import { qualifiedName, type FileRecord } from '../src/codeindex/model.js';

const meta = { size: 0, mtimeMs: 0, hash: '' };

async function parse(lang: string, path: string, text: string): Promise<FileRecord> {
  return extractFile(path, text, lang, await grammarFor(lang), meta);
}

/** `kind Container.name@line sig`, the way a reader checks a definition list. */
const defs = (r: FileRecord) => r.symbols.map((s) => `${s.kind} ${qualifiedName(s)}@${s.line} ${s.sig}${s.decl ? ' [decl]' : ''}`);

describe('Go', () => {
  it('package-level var blocks, aliases, several names in one spec; types and values in the signature; no blank identifier', async () => {
    const r = await parse('go', 'net/http/server.go', [
      'package http',
      '',
      'var (',
      '\tErrBodyNotAllowed = errors.New("http: request method or response status code does not allow body")',
      '\tErrHijacked       = errors.New("http: connection has been hijacked")',
      ')',
      '',
      'var defaultServeMux ServeMux',
      'var _ closeWriter = (*net.TCPConn)(nil)',
      'const bufferBeforeChunkingSize = 2048',
      'const (',
      '\tStateNew ConnState = iota',
      '\tStateActive',
      ')',
      'const runHooks, skipHooks = true, false',
      '',
      'type G = g',
      'type (',
      '\tTree[T any] struct{ left *Tree[T] }',
      '\tSize int',
      ')',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'const ErrBodyNotAllowed@4 = errors.New("http: request method or response status code…',
      'const ErrHijacked@5 = errors.New("http: connection has been hijacked")',
      'const defaultServeMux@8 ServeMux',
      'const bufferBeforeChunkingSize@10 = 2048',
      'const StateNew@12 ConnState = iota',
      'const StateActive@13 ',
      'const runHooks@15 = true, false',
      'const skipHooks@15 = true, false',
      'type G@17 = g',
      'struct Tree@19 [T any]',
      'type Size@20 int',
    ]);
  });
});
