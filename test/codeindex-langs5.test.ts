// The call graph and the definitions behind it on real Rust, Go, Java and PHP code: each case is
// what a task on a real corpus showed (14 Rust crates, Go's library, JDK java.base, the App
// Engine PHP SDK): items inside macros, impls for slices and tuples, paths, receiver types.
import { describe, expect, it } from 'vitest';
import { defs, parse, run } from './codeindex-helpers.js';

describe('Rust items inside a macro', () => {
  it("a cfg macro's items (tokio's cfg_rt! { pub fn spawn … }) are symbols, in the file and in an impl; a macro of other tokens is left as it is", async () => {
    const text = [
      'cfg_rt! {',
      '    /// Spawns a task.',
      '    pub fn spawn<T>(future: T) -> JoinHandle<T> { spawn_inner(future) }',
      '}',
      'pub fn spawn_inner<T>(f: T) -> JoinHandle<T> { todo!() }',
      'impl Runtime {',
      '    cfg_rt! {',
      '        pub fn block_on(&self) {}',
      '    }',
      '}',
      'lazy_static! { static ref X: u8 = 1; }',
      '',
    ].join('\n');
    const r = await parse('rust', 'src/task/spawn.rs', text);
    expect({ note: r.note, defs: defs(r), doc: r.symbols[0]?.doc }).toEqual({
      note: undefined,
      defs: ['function spawn@3 <T>(future: T) -> JoinHandle<T>', 'function spawn_inner@5 <T>(f: T) -> JoinHandle<T>', 'impl Runtime@6 ', 'method Runtime.block_on@8 (&self)'],
      doc: 'Spawns a task.',
    });
    const [callees] = await run({ 'src/task/spawn.rs': text }, [['code_refs', { symbol: 'spawn', direction: 'callees' }]]);
    expect(callees).toBe(['callees of spawn (src/task/spawn.rs:3):', '  src/task/spawn.rs:3 → src/task/spawn.rs:5 spawn_inner'].join('\n'));
  });
});

describe('Rust impls', () => {
  it('an impl for a slice, a tuple, a pointer or () holds its methods; they are no free functions', async () => {
    const r = await parse('rust', 'src/io/async_read.rs', [
      "impl<'a> Replacer for &'a [u8] {",
      '    fn no_expansion(&mut self) -> Option<u8> { None }',
      '}',
      'impl ToSocketAddrs for (IpAddr, u16) {',
      '    fn to_socket_addrs(&self) -> u8 { 0 }',
      '}',
      'impl<T> Sealed for *const T {}',
      'impl A for () {',
      '    fn a(&self) {}',
      '}',
      '',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'impl [u8]@1 : Replacer',
      'method [u8].no_expansion@2 (&mut self) -> Option<u8>',
      'impl (IpAddr, u16)@4 : ToSocketAddrs',
      'method (IpAddr, u16).to_socket_addrs@5 (&self) -> u8',
      'impl *const T@7 : Sealed',
      'impl ()@8 : A',
      'method ().a@9 (&self)',
    ]);
  });
});

describe('Rust calls through a path', () => {
  it("a crate or module named by one lower-case word (autocfg::new(), u32::from_str_radix()) is no method call on a value; a type alias's T::new() is its type's", async () => {
    const [callees, callers, values, own] = await run({
      'src/graph.rs': ['pub struct Graph;', 'impl Graph {', '    pub fn new() -> Self { Graph }', '}', ''].join('\n'),
      'src/regex.rs': ['pub struct Regex;', 'impl Regex {', '    pub fn new(re: &str) -> Regex { Regex }', '}', ''].join('\n'),
      'src/aliases.rs': ['pub type DiGraph<N, Ix = u32> = Graph<N, Ix>;', ''].join('\n'),
      'build.rs': ['fn main() {', '    let ac = autocfg::new();', '    let n = u32::from_str_radix("1", 10);', '    let g = DiGraph::new();', '}', ''].join('\n'),
      // A value's method is no module's function; self::helper() is this module's.
      'src/parse.rs': ['pub fn parse(t: u8) -> u8 { t }', 'fn helper() {}', 'pub struct Lit;', 'impl Lit {', '    fn parse(&self) {}', '}', 'fn f(input: Lit) {', '    input.parse();', '    self::helper();', '}', 'impl Lit {', '    fn make() -> Self { Self::new() }', '    fn new() -> Self { Lit }', '}', ''].join('\n'),
    }, [['code_refs', { symbol: 'main', direction: 'callees' }], ['code_refs', { symbol: 'Regex::new', direction: 'callers' }], ['code_refs', { symbol: 'src/parse.rs:f', direction: 'callees' }], ['code_refs', { symbol: 'Lit.make', direction: 'callees' }]]);
    expect([callees, callers, values, own]).toEqual([
      ['callees of main (build.rs:1):', '  build.rs:4 → src/graph.rs:3 Graph.new'].join('\n'),
      ['callers of Regex.new (src/regex.rs:3):', '  no call sites found in the index'].join('\n'),
      ['callees of f (src/parse.rs:7):', '  src/parse.rs:8 → src/parse.rs:5 Lit.parse (matched by method name only; receiver type unknown)', '  src/parse.rs:9 → src/parse.rs:2 helper'].join('\n'),
      ['callees of Lit.make (src/parse.rs:12):', '  src/parse.rs:12 → src/parse.rs:13 Lit.new'].join('\n'),
    ]);
  });

  it("a type of the workspace without the method (its impl inside a macro) leaves Type::new() to a trait's method, not to every type's new", async () => {
    const [callees, callers] = await run({
      'src/blocking.rs': ['pub struct Blocking<T>(T);', ''].join('\n'),
      'src/regex.rs': ['pub struct Regex;', 'impl Regex {', '    pub fn new(re: &str) -> Regex { Regex }', '}', ''].join('\n'),
      'src/make.rs': ['pub trait Make {', '    fn make() -> u8 { 0 }', '}', ''].join('\n'),
      'src/lib.rs': ['fn f() {', '    let b = Blocking::new(1);', '    let m = Blocking::make();', '}', ''].join('\n'),
    }, [['code_refs', { symbol: 'f', direction: 'callees' }], ['code_refs', { symbol: 'Regex::new', direction: 'callers' }]]);
    expect([callees, callers]).toEqual([
      ['callees of f (src/lib.rs:1):', '  src/lib.rs:3 → src/make.rs:2 Make.make (matched by method name only; receiver type unknown)'].join('\n'),
      ['callers of Regex.new (src/regex.rs:3):', '  no call sites found in the index'].join('\n'),
    ]);
  });
});

describe('receiver types', () => {
  it("Go: a variable made from a composite literal (srv := &Server{…}) has its type, the package's own", async () => {
    const [callees, test] = await run({
      'net/http/server.go': [
        'package http',
        '',
        'type Server struct{ Handler Handler }',
        'type conn struct{}',
        '',
        'func (srv *Server) Serve(l Listener) error { return nil }',
        'func (c *conn) Serve(l Listener) error { return nil }',
        '',
        'func Serve(l Listener, handler Handler) error {',
        '\tsrv := &Server{Handler: handler}',
        '\treturn srv.Serve(l)',
        '}',
        '',
      ].join('\n'),
      // Another package's Server, and a test of this package: its Server is the one beside it.
      'net/http/httptest/server.go': ['package httptest', '', 'type Server struct{}', '', 'func (s *Server) Serve() {}', ''].join('\n'),
      'net/http/serve_test.go': ['package http', '', 'type atomicBool int32', '', 'func (b *atomicBool) isSet() bool { return true }', '', 'func TestServe(t *T) {', '\tsrv := Server{}', '\tsrv.Serve(nil)', '\tvar b atomicBool', '\tb.isSet()', '}', ''].join('\n'),
    }, [['code_refs', { symbol: 'net/http/server.go:9', direction: 'callees' }], ['code_refs', { symbol: 'TestServe', direction: 'callees' }]]);
    expect(callees).toBe(['callees of Serve (net/http/server.go:9):', '  net/http/server.go:11 → net/http/server.go:6 Server.Serve'].join('\n'));
    expect(test).toBe(['callees of TestServe (net/http/serve_test.go:7):', '  net/http/serve_test.go:9 → net/http/server.go:6 Server.Serve', '  net/http/serve_test.go:11 → net/http/serve_test.go:5 atomicBool.isSet'].join('\n'));
  });
});

describe('Java receiver types', () => {
  it('a local, a parameter, a field (with this. or without) and a cast have their types; var and a type named in two packages do not decide', async () => {
    const [callees] = await run({
      'util/HashMap.java': [
        'package java.util;',
        'public class HashMap<K,V> {',
        '    static class Node<K,V> { Node<K,V> next; void touch() {} }',
        '    static final class TreeNode<K,V> extends Node<K,V> { void split(HashMap<K,V> m) {} }',
        '    Node<K,V> root;',
        '    void resize(Node<K,V> p) {',
        '        Node<K,V> e = p.next;',
        '        e.touch();',
        '        p.touch();',
        '        root.touch();',
        '        this.root.touch();',
        '        ((TreeNode<K,V>)e).split(this);',
        '        var q = e;',
        '        q.touch();',
        '        Entry x = null;',
        '        x.touch();',
        '    }',
        '}',
        '',
      ].join('\n'),
      'lang/Str.java': ['package java.lang;', 'public class Str { void split(String r) {} void touch() {} }', ''].join('\n'),
      'a/Entry.java': ['package a;', 'public class Entry { void touch() {} }', ''].join('\n'),
      'b/Entry.java': ['package b;', 'public class Entry { void touch() {} }', ''].join('\n'),
    }, [['code_refs', { symbol: 'HashMap.resize', direction: 'callees' }]]);
    expect(callees).toBe([
      'callees of HashMap.resize (util/HashMap.java:6):',
      '  util/HashMap.java:8,9,10,11 → util/HashMap.java:3 HashMap.Node.touch',
      '  util/HashMap.java:12 → util/HashMap.java:4 HashMap.TreeNode.split',
      '  util/HashMap.java:14,16 → a/Entry.java:2 Entry.touch | b/Entry.java:2 Entry.touch | lang/Str.java:2 Str.touch | util/HashMap.java:3 HashMap.Node.touch (ambiguous)',
    ].join('\n'));
  });

  it('a generic class finds the methods it inherits (class CumulateTask<T> extends CountedCompleter<Void>)', async () => {
    const [callees] = await run({
      'util/concurrent/CountedCompleter.java': ['package java.util.concurrent;', 'public abstract class CountedCompleter<T> {', '    public final boolean compareAndSetPendingCount(int e, int c) { return true; }', '}', ''].join('\n'),
      'util/ArrayPrefixHelpers.java': [
        'package java.util;',
        'import java.util.concurrent.CountedCompleter;',
        'class ArrayPrefixHelpers {',
        '    static final class CumulateTask<T> extends CountedCompleter<Void> {',
        '        void compute(CumulateTask<T> par) { par.compareAndSetPendingCount(1, 2); }',
        '    }',
        '}',
        '',
      ].join('\n'),
      'util/Other.java': ['package java.util;', 'class Other { boolean compareAndSetPendingCount(int e, int c) { return false; } }', ''].join('\n'),
    }, [['code_refs', { symbol: 'CumulateTask.compute', direction: 'callees' }]]);
    expect(callees).toBe(['callees of ArrayPrefixHelpers.CumulateTask.compute (util/ArrayPrefixHelpers.java:5):', '  util/ArrayPrefixHelpers.java:5 → util/concurrent/CountedCompleter.java:3 CountedCompleter.compareAndSetPendingCount'].join('\n'));
  });
});

describe('PHP receiver types', () => {
  it('a variable made with new, a typed parameter, a typed property and one set with new in the constructor have their types', async () => {
    const [callees] = await run({
      'images/images_service_pb.php': ['<?php', 'namespace google\\appengine;', 'class ImagesGetUrlBaseRequest { public function setBlobKey($k) {} }', 'class BlobRequest { public function setBlobKey($k) {} }', ''].join('\n'),
      'cloud_storage/CloudStorageTools.php': [
        '<?php',
        'namespace google\\appengine\\api\\cloud_storage;',
        'final class CloudStorageTools {',
        '  private BlobRequest $blob;',
        '  public function __construct() { $this->other = new BlobRequest(); }',
        '  public function getImageServingUrl(ImagesGetUrlBaseRequest $given) {',
        '    $req = new ImagesGetUrlBaseRequest();',
        '    $req->setBlobKey(1);',
        '    $given->setBlobKey(2);',
        '    $this->blob->setBlobKey(3);',
        '    $this->other->setBlobKey(4);',
        '  }',
        '}',
        '',
      ].join('\n'),
    }, [['code_refs', { symbol: 'CloudStorageTools.getImageServingUrl', direction: 'callees' }]]);
    expect(callees).toBe([
      'callees of CloudStorageTools.getImageServingUrl (cloud_storage/CloudStorageTools.php:6):',
      '  cloud_storage/CloudStorageTools.php:7 → images/images_service_pb.php:3 ImagesGetUrlBaseRequest',
      '  cloud_storage/CloudStorageTools.php:8,9 → images/images_service_pb.php:3 ImagesGetUrlBaseRequest.setBlobKey',
      '  cloud_storage/CloudStorageTools.php:10,11 → images/images_service_pb.php:4 BlobRequest.setBlobKey',
    ].join('\n'));
  });
});
