// The code index on the shapes real Go, Ruby and Rust code takes. Each case is what a real file
// showed: Go's standard library (net/http, runtime), Ruby's (net/http, csv, set), and crates
// Debian ships as source (regex, serde, syn).
import { describe, expect, it } from 'vitest';
import { defs, parse, run } from './codeindex-helpers.js';

describe('Go', () => {
  it('package-level var blocks (variables, not constants), aliases, several names in one spec; types and values in the signature; no blank identifier', async () => {
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
      'var ErrBodyNotAllowed@4 = errors.New("http: request method or response status code…',
      'var ErrHijacked@5 = errors.New("http: connection has been hijacked")',
      'var defaultServeMux@8 ServeMux',
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

describe('Go calls', () => {
  it('a call on the receiver or a typed parameter goes to the method of that type, not to every method of the name', async () => {
    const [callers] = await run({
      'http/server.go': [
        'package http',
        '',
        'type Server struct{ Addr string }',
        'type conn struct{ server *Server }',
        '',
        'func (srv *Server) newConn(addr string) *conn { return &conn{server: srv} }',
        'func (srv *Server) Serve(addr string) error {',
        '\tc := srv.newConn(addr)',
        '\treturn nil',
        '}',
        'func serveOne(s *Server, c conn) { s.newConn("x") }',
      ].join('\n'),
      'http/transport.go': ['package http', '', 'type Transport struct{}', '', 'func (t *Transport) newConn(addr string) {}'].join('\n'),
    }, [['code_refs', { symbol: 'Server.newConn', direction: 'callers' }]]);
    expect(callers).toBe(['callers of Server.newConn (http/server.go:6):', '  http/server.go:8 Server.Serve', '  http/server.go:11 serveOne'].join('\n'));
  });

  it('a method a struct gets from one it embeds is still found, marked uncertain', async () => {
    const [callers] = await run({
      'bufio/bufio.go': ['package bufio', '', 'type Writer struct{ n int }', '', 'func (b *Writer) Flush() error { return nil }'].join('\n'),
      'http/response.go': [
        'package http',
        '',
        'type response struct {',
        '	*bufio.Writer',
        '	status int',
        '}',
        '',
        'func (w *response) finish() {',
        '	w.Flush()',
        '}',
      ].join('\n'),
    }, [['code_refs', { symbol: 'Writer.Flush', direction: 'callers' }]]);
    expect(callers).toBe(['callers of Writer.Flush (bufio/bufio.go:5):', '  http/response.go:9 response.finish (ambiguous)'].join('\n'));
  });
});

describe('Ruby', () => {
  const response = [
    'module Net',
    '  class HTTPResponse',
    '    # The HTTP result code string.',
    '    attr_reader :code, :message',
    '    def read_body(dest = nil, &block)',
    '      read_body_0 dest',
    '    end',
    '    def read_body_0(dest)',
    '      dest',
    '    end',
    '  end',
    'end',
    'class Net::HTTPOK < Net::HTTPSuccess',
    '  def self.body_permitted?',
    '    true',
    '  end',
    'end',
  ].join('\n');

  it('a class named by its path (class Net::HTTPOK) is HTTPOK in Net; attributes are methods; a superclass is shown apart', async () => {
    const r = await parse('ruby', 'net/http/response.rb', response);
    expect(defs(r)).toEqual([
      'module Net@1 ',
      'class Net.HTTPResponse@2 ',
      'method HTTPResponse.code@4 attr_reader',
      'method HTTPResponse.message@4 attr_reader',
      'method HTTPResponse.read_body@5 (dest = nil, &block)',
      'method HTTPResponse.read_body_0@8 (dest)',
      'class Net.HTTPOK@13 < Net::HTTPSuccess',
      'method HTTPOK.body_permitted?@14 ',
    ]);
    expect(r.symbols[2]!.doc).toBe('The HTTP result code string.');
    const [outline, symbol] = await run({ 'net/http/response.rb': response }, [['code_outline', { path: 'net/http/response.rb' }], ['code_symbol', { name: 'HTTPOK' }]]);
    expect(outline).toBe([
      'net/http/response.rb (17 lines)',
      '1 module Net',
      '  2 class HTTPResponse',
      '    4 code attr_reader',
      '    4 message attr_reader',
      '    5 read_body(dest = nil, &block)',
      '    8 read_body_0(dest)',
      '13 class Net.HTTPOK < Net::HTTPSuccess',
      '  14 body_permitted?',
    ].join('\n'));
    expect(symbol.split('\n')[0]).toBe('net/http/response.rb:13-17 class Net.HTTPOK < Net::HTTPSuccess');
  });
});

describe('Rust', () => {
  it('an impl for a reference holds its methods; a macro shows its first rule; a long doc comment shows its first line', async () => {
    const doc = ['/// Returns the capture groups corresponding to the leftmost-first match.', '///', ...Array.from({ length: 45 }, (_, i) => `/// example line ${i}`)];
    const r = await parse('rust', 'src/de/mod.rs', [
      "impl<'a> Expected for &'a str {",
      '    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {',
      '        formatter.write_str(self)',
      '    }',
      '}',
      'macro_rules! forward_to_deserialize_any {',
      '    (<$visitor:ident: Visitor<$lifetime:tt>> $($func:ident)*) => {',
      '        $(forward_to_deserialize_any_helper!{$func<$lifetime, $visitor>})*',
      '    };',
      '    ($($func:ident)*) => {};',
      '}',
      ...doc,
      "pub fn captures<'t>(text: &'t str) -> Option<Captures<'t>> {",
      '    None',
      '}',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'impl str@1 : Expected',
      'method str.fmt@2 (&self, formatter: &mut fmt::Formatter) -> fmt::Result',
      'macro forward_to_deserialize_any@6 (<$visitor:ident: Visitor<$lifetime:tt>> $($func:ident)*)',
      "function captures@59 <'t>(text: &'t str) -> Option<Captures<'t>>",
    ]);
    expect(r.symbols[3]!.doc).toBe('Returns the capture groups corresponding to the leftmost-first match.');
  });
});
