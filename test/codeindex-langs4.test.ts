// The four tools as the model reads them on real Python, Go, Rust, Java, C, Ruby and PHP code:
// each case is what a task on a real corpus showed (CPython's library, Go's, JDK java.base, 14
// Rust crates, Ruby's library, zlib's and X11's C, the App Engine PHP SDK).
import { describe, expect, it } from 'vitest';
import { defs, parse, run } from './codeindex-helpers.js';

describe('code_outline', () => {
  it('Go: a method is named by its receiver type where it stands, not indented under whatever came before it', async () => {
    const [outline] = await run({
      'net/http/server.go': [
        'package http',
        '',
        '// A Server defines parameters for running an HTTP server.',
        'type Server struct {',
        '\tAddr string',
        '}',
        '',
        'var ErrServerClosed = errors.New("http: Server closed")',
        '',
        'func (srv *Server) Serve(l net.Listener) error {',
        '\treturn nil',
        '}',
        '',
        'type Handler interface {',
        '\tServeHTTP(ResponseWriter, *Request)',
        '}',
        '',
      ].join('\n'),
    }, [['code_outline', { path: 'net/http/server.go' }]]);
    expect(outline).toBe([
      'net/http/server.go (16 lines)',
      '4 struct Server',
      '8 var ErrServerClosed = errors.New("http: Server closed")',
      '10 Server.Serve(l net.Listener) error',
      '14 interface Handler',
      '  15 ServeHTTP(ResponseWriter, *Request)',
    ].join('\n'));
  });

  it("Ruby: a module holds its methods and classes; its methods after a nested class are the module's", async () => {
    const [outline] = await run({
      'fileutils.rb': [
        'module FileUtils',
        '  def mkdir_p(list)',
        '  end',
        '',
        '  class Entry_',
        '    def path',
        '    end',
        '  end',
        '',
        '  def fu_list(arg)',
        '  end',
        'end',
        '',
      ].join('\n'),
    }, [['code_outline', { path: 'fileutils.rb' }]]);
    expect(outline).toBe([
      'fileutils.rb (12 lines)',
      '1 module FileUtils',
      '  2 mkdir_p(list)',
      '  5 class Entry_',
      '    6 path',
      '  10 fu_list(arg)',
    ].join('\n'));
  });
});

describe('a folder outline too long to show whole', () => {
  /** A Go file of `n` functions, or of a struct and `n` methods on it. */
  const goFile = (pkg: string, n: number, type?: string) =>
    [`package ${pkg}`, '', ...(type ? [`type ${type} struct{}`] : []), ...Array.from({ length: n }, (_, i) => (type ? `func (x *${type}) M${i}(a int) int { return a }` : `func F${i}(a int) int { return a }`)), ''].join('\n');

  it("shows the folder's own code before subfolders and tests, the first files with their members, and names what it left out", async () => {
    const files: Record<string, string> = {
      'net/http/alpn_test.go': goFile('http', 150),
      'net/http/cgi/child.go': goFile('cgi', 150),
      'net/http/client.go': goFile('http', 150, 'Client'),
      'net/http/server.go': goFile('http', 150, 'Server'),
      'net/http/transport.go': goFile('http', 150, 'Transport'),
    };
    for (let i = 0; i < 3; i++) files[`net/http/httptest/f${i}.go`] = goFile('httptest', 150);
    const [outline] = await run(files, [['code_outline', { path: 'net/http' }]]);
    const lines = outline.split('\n');
    expect(lines.length).toBeLessThanOrEqual(402);
    expect(lines.filter((l) => !/^\s*\d/.test(l))).toEqual([
      'net/http/client.go (153 lines)',
      'net/http/server.go (153 lines)',
      'net/http/transport.go (153 lines)',
      'net/http/cgi/child.go (152 lines)',
      '[… 4 more files not shown: httptest/ (3 files), alpn_test.go; outline one of them]',
      '[members of the files from net/http/server.go on are not shown; outline one file for them]',
    ]);
    expect(lines.slice(0, 3)).toEqual(['net/http/client.go (153 lines)', '3 struct Client', '4 Client.M0(a int) int']);
    expect(lines.slice(152, 157)).toEqual(['net/http/server.go (153 lines)', '3 struct Server', 'net/http/transport.go (153 lines)', '3 struct Transport', 'net/http/cgi/child.go (152 lines)']);
  });

  it('Ruby: a file brief for want of space still shows the classes its modules hold', async () => {
    const rb = (i: number) => ['module Bundler', `  class Cli${i}`, ...Array.from({ length: 60 }, (_, k) => `    def run${k}(opts)\n    end`), '  end', 'end', ''].join('\n');
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`bundler/cli/c${i}.rb`] = rb(i);
    const [outline] = await run(files, [['code_outline', { path: 'bundler/cli' }]]);
    const lines = outline.split('\n');
    expect(lines.slice(-7)).toEqual([
      'bundler/cli/c6.rb (124 lines)',
      '1 module Bundler',
      '  2 class Cli6',
      'bundler/cli/c7.rb (124 lines)',
      '1 module Bundler',
      '  2 class Cli7',
      '[members of the files from bundler/cli/c6.rb on are not shown; outline one file for them]',
    ]);
  });
});

describe('code_symbol', () => {
  it('C: the preprocessor lines above a symbol are not its doc; a comment above it is', async () => {
    const out = await run({
      'zconf.h': ['#ifndef Z_SOLO', '#  define gzwrite z_gzwrite', '#endif', '#  define inflate z_inflate', '', '#include <stddef.h>', '/* Maximum value for memLevel */', '#define MAX_MEM_LEVEL 9', ''].join('\n'),
    }, [['code_symbol', { name: 'inflate' }], ['code_symbol', { name: 'MAX_MEM_LEVEL' }]]);
    expect(out).toEqual([
      ['zconf.h:4-4 const inflate = z_inflate', '     4\t#  define inflate z_inflate'].join('\n'),
      ['zconf.h:8-8 const MAX_MEM_LEVEL = 9', '     7\t/* Maximum value for memLevel */', '     8\t#define MAX_MEM_LEVEL 9'].join('\n'),
    ]);
  });

  it("Rust attributes, Python decorators and comments above a symbol are shown with it", async () => {
    const out = await run({
      'lib.rs': ['/// Makes one.', '#[inline]', 'pub fn make() -> u8 {', '    1', '}', ''].join('\n'),
      'paths.py': ['class PurePath:', '    # The last part.', '    @property', '    def stem(self):', '        return self._stem', ''].join('\n'),
    }, [['code_symbol', { name: 'make' }], ['code_symbol', { name: 'stem' }]]);
    expect(out).toEqual([
      ['lib.rs:3-5 function make() -> u8', '     1\t/// Makes one.', '     2\t#[inline]', '     3\tpub fn make() -> u8 {', '     4\t    1', '     5\t}'].join('\n'),
      ['paths.py:4-5 method PurePath.stem(self) @property', '     2\t    # The last part.', '     3\t    @property', '     4\t    def stem(self):', '     5\t        return self._stem'].join('\n'),
    ]);
  });
});

describe('code_symbol naming several', () => {
  it("Java overloads and Python methods of one name are listed with their owners and signatures, so path:line can pick one", async () => {
    const out = await run({
      'lang/String.java': ['public final class String {', '    public static String valueOf(Object obj) { return null; }', '    public static String valueOf(char[] data) { return null; }', '}', ''].join('\n'),
      'json/encoder.py': ['class JSONEncoder:', '    def __init__(self, *, indent=None):', '        pass', ''].join('\n'),
      'json/decoder.py': ['class JSONDecoder:', '    def __init__(self, *, object_hook=None):', '        pass', ''].join('\n'),
    }, [['code_symbol', { name: 'String.valueOf' }], ['code_symbol', { name: '__init__' }]]);
    expect(out).toEqual([
      ['2 symbols match String.valueOf; name one as path:line:', 'lang/String.java:2 method String.valueOf(Object obj): String', 'lang/String.java:3 method String.valueOf(char[] data): String'].join('\n'),
      ['2 symbols match __init__; name one as path:line:', 'json/decoder.py:2 method JSONDecoder.__init__(self, *, object_hook=None)', 'json/encoder.py:2 method JSONEncoder.__init__(self, *, indent=None)'].join('\n'),
    ]);
  });
});

describe('code_refs on a name several definitions share', () => {
  it('lists a call site that may reach any of them once, under the first, and says so under the others', async () => {
    const [out] = await run({
      'dates.py': ['class date:', '    def replace(self, year=None):', '        return self', '', '    def next_year(self):', '        return self.replace(year=1)', ''].join('\n'),
      'paths.py': ['class Path:', '    def replace(self, target):', '        return target', ''].join('\n'),
      'util.py': ['def clean(s):', '    return s.replace("a", "b")', '', 'def tidy(s):', '    return s.strip().replace("c", "d")', ''].join('\n'),
    }, [['code_refs', { symbol: 'replace', direction: 'callers' }]]);
    expect(out).toBe([
      'callers of date.replace (dates.py:2):',
      '  dates.py:6 date.next_year',
      '  util.py:2 clean (ambiguous)',
      '  util.py:5 tidy (ambiguous)',
      '',
      'callers of Path.replace (paths.py:2):',
      '  [2 uncertain call sites shown or counted above may reach this one too]',
    ].join('\n'));
  });

  it('says how many of the edges past the cut are uncertain, and at depth 1 to name a narrower symbol', async () => {
    const util = Array.from({ length: 85 }, (_, i) => `def f${i}(s):\n    return s.replace(1)\n`).join('\n');
    const [out] = await run({
      'dates.py': ['class date:', '    def replace(self, year=None):', '        return self', ''].join('\n'),
      'paths.py': ['class Path:', '    def replace(self, target):', '        return target', ''].join('\n'),
      'util.py': util,
    }, [['code_refs', { symbol: 'date.replace', direction: 'callers' }]]);
    const lines = out.split('\n');
    expect([lines.length, lines.at(-1)]).toEqual([82, '[… 5 more call sites not shown, all uncertain; name a narrower symbol (Class.method, path:name)]']);
  });
});

describe('an outline short of space', () => {
  // Enough one-line definitions that the outline shows parameter names only.
  const many = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i));

  it("names parameters, not their types or Rust's &, mut and lifetimes; an impl keeps the trait it implements", async () => {
    const [rs, c, java] = await run({
      'src/re_bytes.rs': [
        'pub struct Regex;',
        'impl fmt::Display for Regex {',
        "    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }",
        '}',
        'impl Regex {',
        "    pub fn find_iter<'r, 't>(&'r self, text: &'t [u8]) -> Matches<'r, 't> { todo!() }",
        '    pub fn replacen<R: Replacer>(&self, text: &[u8], limit: usize, mut rep: R) -> Cow<[u8]> { todo!() }',
        '    fn next(&mut self) -> Option<u8> { None }',
        ...many(18, (i) => `    pub fn shortest_match_at_${i}(&self, text: &[u8], start: usize) -> Option<usize> { None }`),
        '}',
        '',
      ].join('\n'),
      'zlib.c': [
        'int deflateInit2(z_streamp strm, int level, const char *version, void (*cb)(void *), char buf[]) { return 0; }',
        ...many(18, (i) => `static unsigned long adler32_combine_${i}(unsigned long adler1, unsigned long adler2, long len2) { return 0; }`),
        '',
      ].join('\n'),
      'lang/Str.java': [
        'public final class Str {',
        '    public static String valueOf(char[] data, final int offset, int... counts) { return null; }',
        ...many(18, (i) => `    public static String copyValueOfCharacters${i}(char[] data, int offset, int count, boolean share) { return null; }`),
        '}',
        '',
      ].join('\n'),
    }, [['code_outline', { path: 'src/re_bytes.rs' }], ['code_outline', { path: 'zlib.c' }], ['code_outline', { path: 'lang/Str.java' }]]);
    expect(rs.split('\n').slice(0, 8)).toEqual([
      'src/re_bytes.rs (27 lines) [signatures shortened to fit; code_symbol shows one in full]',
      '1 struct Regex',
      '2 impl Regex: fmt::Display',
      '  3 fmt(&self, f)',
      '5 impl Regex',
      '  6 find_iter(&self, text)',
      '  7 replacen(&self, text, limit, rep)',
      '  8 next(&mut self)',
    ]);
    expect(c.split('\n').slice(0, 3)).toEqual(['zlib.c (19 lines) [signatures shortened to fit; code_symbol shows one in full]', '1 deflateInit2(strm, level, version, cb, buf)', '2 adler32_combine_0(adler1, adler2, len2)']);
    expect(java.split('\n').slice(0, 4)).toEqual(['lang/Str.java (21 lines) [signatures shortened to fit; code_symbol shows one in full]', '1 class Str', '  2 valueOf(data, offset, counts)', '  3 copyValueOfCharacters0(data, offset, count, share)']);
  });
});

describe('signatures', () => {
  it("Rust: a where clause broken over lines ends without its last comma", async () => {
    const r = await parse('rust', 'src/task/spawn.rs', ['pub fn spawn<T>(future: T) -> JoinHandle<T::Output>', 'where', "    T: Future + Send + 'static,", "    T::Output: Send + 'static,", '{', '    todo!()', '}', ''].join('\n'));
    expect(defs(r)).toEqual(["function spawn@1 <T>(future: T) -> JoinHandle<T::Output> where T: Future + Send + 'static, T::Output: Send + 'static"]);
  });

  it('comments inside a parameter list are left out (Python, C)', async () => {
    const py = await parse('python', 'json/encoder.py', [
      'def _make_iterencode(markers, _default, _one_shot,',
      '        ## HACK: hand-optimized bytecode; turn globals into locals',
      '        ValueError=ValueError,',
      "        sep='#',",
      '    ):',
      '    pass',
      '',
    ].join('\n'));
    const c = await parse('cpp', 'zlib.h', 'int inflateInit2(z_streamp strm, /* the stream */ int windowBits // log2 of the window\n) { return 0; }\n');
    expect([...defs(py), ...defs(c)]).toEqual([
      "function _make_iterencode@1 (markers, _default, _one_shot, ValueError=ValueError, sep='#')",
      'function inflateInit2@1 (z_streamp strm, int windowBits): int',
    ]);
  });
});

describe('Python decorators that change how a function is used', () => {
  it('a property, a setter, a static or class method and a context manager say so; other decorators do not; a property has no callers but readers', async () => {
    const files = {
      'pathlib.py': [
        'class PurePath:',
        '    @property',
        '    def stem(self):',
        '        return self._stem',
        '',
        '    @stem.setter',
        '    def stem(self, value):',
        '        self._stem = value',
        '',
        '    @classmethod',
        '    def _from_parts(cls, args):',
        '        return cls()',
        '',
        '    @staticmethod',
        '    def _split(s):',
        '        return s',
        '',
        '    @functools.lru_cache()',
        '    def parts(self):',
        '        return []',
        '',
        '@contextlib.contextmanager',
        'def chdir(path):',
        '    yield',
        '',
      ].join('\n'),
    };
    const [outline, callers] = await run(files, [['code_outline', { path: 'pathlib.py' }], ['code_refs', { symbol: 'pathlib.py:3', direction: 'callers' }]]);
    expect([outline, callers]).toEqual([
      [
        'pathlib.py (24 lines)',
        '1 class PurePath',
        '  3 stem(self) @property',
        '  7 stem(self, value) @stem.setter',
        '  11 _from_parts(cls, args) @classmethod',
        '  15 _split(s) @staticmethod',
        '  19 parts(self)',
        '23 function chdir(path) @contextlib.contextmanager',
      ].join('\n'),
      ['callers of PurePath.stem (pathlib.py:3):', '  no call sites found in the index (a property is read, not called: code_search finds where)'].join('\n'),
    ]);
  });
});

describe('code_symbol and code_refs naming what is not there', () => {
  it('a line outside every symbol names the symbols around it; a line past the end, the length; a path the index has not, that', async () => {
    const out = await run({
      'json/encoder.py': ['"""Implementation of JSONEncoder."""', 'import re', '', 'ESCAPE = re.compile(r"x")', '', 'def encode(s):', '    return s', '', 'if __name__ == "__main__":', '    encode("x")', ''].join('\n'),
    }, [
      ['code_symbol', { name: 'json/encoder.py:2' }],
      ['code_symbol', { name: 'json/encoder.py:9' }],
      ['code_symbol', { name: 'json/encoder.py:400' }],
      ['code_symbol', { name: 'json/decoder.py:decode' }],
      ['code_refs', { symbol: 'json/encoder.py:9', direction: 'callees' }],
      // Path inherits stem from PurePath: the owner asked for has none of its own.
      ['code_symbol', { name: 'JSONEncoder.encode' }],
    ]);
    expect(out).toEqual([
      'json/encoder.py:2 is in no symbol (top-level code); the next is json/encoder.py:4 ESCAPE; read_file shows the line',
      'json/encoder.py:9 is in no symbol (top-level code); the one before is json/encoder.py:6 encode; read_file shows the line',
      'json/encoder.py has 10 lines',
      'json/decoder.py is no source file the index has; code_search or read_file',
      'json/encoder.py:9 is in no symbol (top-level code); the one before is json/encoder.py:6 encode; read_file shows the line',
      'no symbol JSONEncoder.encode found; encode is: json/encoder.py:6 encode',
    ]);
  });
});

describe('code_symbol on a long doc comment', () => {
  it("shows the doc's first lines and counts the rest, then the attributes and the code", async () => {
    const doc = Array.from({ length: 60 }, (_, i) => (i === 0 ? '/// Spawns a new asynchronous task.' : `/// line ${i}`));
    const [out] = await run({ 'src/task/spawn.rs': [...doc, '#[track_caller]', 'pub fn spawn() -> u8 {', '    0', '}', ''].join('\n') }, [['code_symbol', { name: 'spawn' }]]);
    expect(out.split('\n')).toEqual([
      'src/task/spawn.rs:62-64 function spawn() -> u8',
      ...doc.slice(0, 20).map((l, i) => `${String(i + 1).padStart(6)}\t${l}`),
      '[… 40 more lines of doc comment]',
      '    61\t#[track_caller]',
      '    62\tpub fn spawn() -> u8 {',
      '    63\t    0',
      '    64\t}',
    ]);
  });
});

describe('code_symbol on a declaration', () => {
  it('says a prototype or an interface method is a declaration only, when no definition has a body', async () => {
    const out = await run({
      'zlib.h': ['ZEXTERN int deflateEnd(z_streamp strm);', ''].join('\n'),
      'net/http/server.go': ['package http', '', 'type Handler interface {', '\tServeHTTP(ResponseWriter, *Request)', '}', ''].join('\n'),
    }, [['code_symbol', { name: 'deflateEnd' }], ['code_symbol', { name: 'ServeHTTP' }]]);
    expect(out).toEqual([
      ['zlib.h:1-1 function deflateEnd(z_streamp strm) [a declaration, without a body]', '     1\tZEXTERN int deflateEnd(z_streamp strm);'].join('\n'),
      ['net/http/server.go:4-4 method Handler.ServeHTTP(ResponseWriter, *Request) [a declaration, without a body]', '     4\t\tServeHTTP(ResponseWriter, *Request)'].join('\n'),
    ]);
  });
});
