// Calls through a path, the way real Rust, C++ and PHP code writes them: `Regex::new(re)`,
// `Box::new(x)`, `crate::util::helper()`, `QString::number(n)`, `Util::go()`. The path's type or
// module narrows the target; a type the workspace does not define leaves it.
import { describe, expect, it } from 'vitest';
import { extractFile } from '../src/codeindex/extract.js';
import { grammarFor } from '../src/codeindex/parsefile.js';
import { run } from './codeindex-helpers.js';

/** The regex crate's two modules of a Regex type each (the same code, for Unicode text and for bytes). */
const regexModule = (matching: string): string =>
  [
    'use crate::exec::Exec;',
    '',
    `/// A compiled regular expression for matching ${matching}.`,
    'pub struct Regex(Exec);',
    '',
    'impl Regex {',
    '    /// Compiles a regular expression.',
    '    pub fn new(re: &str) -> Result<Regex, Error> {',
    '        let exec = Exec::new(re)?;',
    '        Ok(Regex(exec))',
    '    }',
    '}',
    '',
  ].join('\n');

/** A small regex crate: two Regex types (unicode and bytes), a pool, calls on std's types. */
const REGEX_CRATE: Record<string, string> = {
  'src/lib.rs': [
    'mod exec;',
    'mod pool;',
    'mod re_bytes;',
    'mod re_unicode;',
    'mod util;',
    '',
    'pub use crate::re_unicode::Regex;',
    '',
    'pub mod bytes {',
    '    pub use crate::re_bytes::*;',
    '}',
    '',
  ].join('\n'),
  'src/re_unicode.rs': regexModule('Unicode strings'),
  'src/re_bytes.rs': regexModule('arbitrary bytes'),
  'src/exec.rs': [
    'use std::cell::RefCell;',
    'use std::sync::Arc;',
    '',
    'use crate::pool::Pool;',
    '',
    'pub struct Exec {',
    '    ro: Arc<String>,',
    '    pool: Box<Pool<RefCell<Vec<usize>>>>,',
    '}',
    '',
    'impl Exec {',
    '    pub fn new(re: &str) -> Result<Exec, Error> {',
    '        let ro = Arc::new(re.to_string());',
    '        let pool = Box::new(Pool::new(Box::new(move || RefCell::new(vec![]))));',
    '        Ok(Exec { ro, pool })',
    '    }',
    '}',
    '',
    'impl Default for Exec {',
    '    fn default() -> Exec {',
    '        Exec::new("").unwrap()',
    '    }',
    '}',
    '',
    'pub fn fresh<T: Default>() -> T {',
    '    T::default()',
    '}',
    '',
  ].join('\n'),
  'src/pool.rs': [
    'use std::mem;',
    'use std::sync::Mutex;',
    '',
    'pub struct Pool<T> {',
    '    stack: Mutex<Vec<Box<T>>>,',
    '}',
    '',
    'impl<T: Send> Pool<T> {',
    '    pub fn new(create: CreateFn<T>) -> Pool<T> {',
    '        let mut stack = Mutex::new(vec![]);',
    '        let mut other = Vec::new();',
    '        mem::swap(&mut stack, &mut other);',
    '        crate::util::trace("pool");',
    '        Pool { stack }',
    '    }',
    '}',
    '',
  ].join('\n'),
  'src/util.rs': [
    'pub fn trace(what: &str) {',
    '    let _ = what;',
    '}',
    '',
    'pub fn swap(a: &mut usize, b: &mut usize) {',
    '    let t = *a;',
    '    *a = *b;',
    '    *b = t;',
    '}',
    '',
  ].join('\n'),
  'src/replacer.rs': [
    'pub trait Replacer {',
    '    fn replace_append(&mut self, dst: &mut String);',
    '}',
    '',
    'impl Replacer for String {',
    '    fn replace_append(&mut self, dst: &mut String) {',
    '        let mut s = String::new();',
    '        s.push_str(self);',
    '        dst.push_str(&s);',
    '    }',
    '}',
    '',
  ].join('\n'),
  'src/re_set.rs': [
    'use crate::re_unicode::Regex;',
    '',
    'pub fn compile_all(patterns: &[&str]) -> Vec<Regex> {',
    '    patterns.iter().map(|p| Regex::new(p).unwrap()).collect()',
    '}',
    '',
  ].join('\n'),
  'tests/crazy.rs': [
    'use regex::Regex;',
    '',
    '#[test]',
    'fn dfa_handles_pathological_case() {',
    '    let re = ::regex::bytes::Regex::new(r"\\bs(?:[ab])").unwrap();',
    '    assert!(re.is_match(b"s"));',
    '}',
    '',
    '#[test]',
    'fn unicode_word() {',
    '    let re = Regex::new(r"\\w+").unwrap();',
    '    assert!(re.is_match("s"));',
    '}',
    '',
  ].join('\n'),
};

describe('Rust paths', () => {
  it('Type::new() goes to the new of that type, narrowed by the import; std types and modules leave the workspace; crate::module::f() goes to f in that module; T::default() on a type parameter is any implementation', async () => {
    const [regexNew, poolNew, trace, swap, replace, generic] = await run(REGEX_CRATE, [
      ['code_refs', { symbol: 'Regex.new', direction: 'callers', depth: 1 }],
      ['code_refs', { symbol: 'Pool.new', direction: 'callees', depth: 1 }],
      ['code_refs', { symbol: 'trace', direction: 'callers', depth: 1 }],
      ['code_refs', { symbol: 'swap', direction: 'callers', depth: 1 }],
      ['code_refs', { symbol: 'String.replace_append', direction: 'callees', depth: 1 }],
      ['code_refs', { symbol: 'Exec.default', direction: 'callers', depth: 1 }],
    ]);
    expect(regexNew).toBe(
      [
        // ::regex::bytes::Regex names its module: that Regex's new, certain.
        'callers of Regex.new (src/re_bytes.rs:8):',
        '  tests/crazy.rs:5 dfa_handles_pathological_case',
        '  tests/crazy.rs:11 unicode_word (ambiguous)',
        '',
        'callers of Regex.new (src/re_unicode.rs:8):',
        '  src/re_set.rs:4 compile_all',
        '  [1 uncertain call site shown or counted above may reach this one too]',
      ].join('\n'),
    );
    expect(poolNew).toBe(['callees of Pool.new (src/pool.rs:9):', '  src/pool.rs:13 → src/util.rs:1 trace'].join('\n'));
    expect(trace).toBe(['callers of trace (src/util.rs:1):', '  src/pool.rs:13 Pool.new'].join('\n'));
    expect(replace).toBe(['callees of String.replace_append (src/replacer.rs:6):', '  no calls into indexed code'].join('\n'));
    // A type parameter's method is any implementation's: matched by name, uncertain.
    expect(generic).toBe(['callers of Exec.default (src/exec.rs:20):', '  src/exec.rs:26 fresh (matched by method name only; receiver type unknown)'].join('\n'));
    expect(swap).toBe(['callers of swap (src/util.rs:5):', '  no call sites found in the index'].join('\n'));
  });
});

describe('Rust paths across crates', () => {
  it('a path the module resolver cannot follow (a crate by its name, a mod.rs folder) narrows by the folders it names: tokio::time::sleep is tokio\'s, not libc\'s', async () => {
    const [sleep, builder] = await run(
      {
        'tokio-1.24.2/src/lib.rs': ['pub mod runtime;', 'pub mod task;', 'pub mod time;', ''].join('\n'),
        'tokio-1.24.2/src/time/mod.rs': ['mod sleep;', 'pub use sleep::sleep;', ''].join('\n'),
        'tokio-1.24.2/src/time/sleep.rs': ['/// Waits until `duration` has elapsed.', 'pub fn sleep(duration: Duration) -> Sleep {', '    Sleep::new_timeout(Instant::now() + duration)', '}', ''].join('\n'),
        'tokio-1.24.2/src/runtime/builder.rs': ['pub struct Builder {', '    kind: Kind,', '}', '', 'impl Builder {', '    pub fn new_current_thread() -> Builder {', '        Builder { kind: Kind::CurrentThread }', '    }', '}', ''].join('\n'),
        'tokio-1.24.2/src/task/builder.rs': ['pub struct Builder<\'a> {', '    name: Option<&\'a str>,', '}', '', 'impl<\'a> Builder<\'a> {', '    pub fn new_current_thread() -> Self {', '        Self { name: None }', '    }', '}', ''].join('\n'),
        'libc-0.2.139/src/fuchsia/mod.rs': ['extern "C" {', '    pub fn sleep(secs: ::c_uint) -> ::c_uint;', '}', '', 'pub fn sleep(secs: ::c_uint) -> ::c_uint {', '    0', '}', ''].join('\n'),
        'tokio-1.24.2/tests/time_sleep.rs': [
          'use std::time::Duration;',
          '',
          '#[test]',
          'fn short_sleeps() {',
          '    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();',
          '    rt.block_on(async {',
          '        tokio::time::sleep(Duration::from_millis(0)).await;',
          '    });',
          '}',
          '',
        ].join('\n'),
      },
      [
        ['code_refs', { symbol: 'short_sleeps', direction: 'callees', depth: 1 }],
        ['code_refs', { symbol: 'tokio-1.24.2/src/task/builder.rs:Builder.new_current_thread', direction: 'callers', depth: 1 }],
      ],
    );
    expect(sleep).toBe(
      [
        'callees of short_sleeps (tokio-1.24.2/tests/time_sleep.rs:4):',
        '  tokio-1.24.2/tests/time_sleep.rs:5 → tokio-1.24.2/src/runtime/builder.rs:6 Builder.new_current_thread',
        '  tokio-1.24.2/tests/time_sleep.rs:7 → tokio-1.24.2/src/time/sleep.rs:2 sleep',
      ].join('\n'),
    );
    expect(builder).toBe(['callers of Builder.new_current_thread (tokio-1.24.2/src/task/builder.rs:6):', '  no call sites found in the index'].join('\n'));
  });
});

describe('Rust module paths', () => {
  it("use crate::…, super::…, a mod.rs folder and the crate by its Cargo.toml name go to their module; a test module's super finds the file's own definitions", async () => {
    const crate = {
      'Cargo.toml': '[package]\nname = "net-kit"\nversion = "0.1.0"\n\n[dependencies]\nname = "not-this"\n',
      'src/lib.rs': 'pub mod net;\npub mod util;\n',
      'src/net/mod.rs': 'pub mod tcp;\nuse crate::util::helper;\n\npub fn connect() {\n    helper();\n}\n',
      'src/net/tcp.rs': 'use super::connect;\n\npub fn open() {\n    connect();\n}\n',
      'src/util.rs': 'pub fn helper() {}\n\n#[cfg(test)]\nmod tests {\n    use super::helper;\n\n    #[test]\n    fn helps() {\n        helper();\n    }\n}\n',
      'tests/it.rs': 'use net_kit::net::connect;\n\n#[test]\nfn connects() {\n    connect();\n}\n',
      'src/config.rs': 'pub struct Config;\n\nimpl Config {\n    pub fn new() -> Self {\n        Config\n    }\n}\n\n#[cfg(test)]\nmod tests {\n    use super::Config;\n\n    #[test]\n    fn builds() {\n        Config::new();\n    }\n}\n',
      'src/lib/config.rs': 'pub struct Config;\n\nimpl Config {\n    pub fn new() -> Self {\n        Config\n    }\n}\n',
      // Another crate with the same names: a look-up by name alone cannot tell them apart.
      'vendor-free/other/src/net/mod.rs': 'pub fn connect() {}\n',
      'vendor-free/other/src/util.rs': 'pub fn helper() {}\n',
    };
    const [connect, helper, config] = await run(crate, [
      ['code_refs', { symbol: 'src/net/mod.rs:connect', direction: 'callers' }],
      ['code_refs', { symbol: 'src/util.rs:helper', direction: 'callers' }],
      ['code_refs', { symbol: 'src/config.rs:new', direction: 'callers' }],
    ]);
    expect({ connect, helper, config }).toEqual({
      config: ['callers of Config.new (src/config.rs:4):', '  src/config.rs:15 tests.builds'].join('\n'),
      connect: ['callers of connect (src/net/mod.rs:4):', '  src/net/tcp.rs:4 open', '  tests/it.rs:5 connects'].join('\n'),
      helper: ['callers of helper (src/util.rs:1):', '  src/net/mod.rs:5 connect', '  src/util.rs:9 tests.helps'].join('\n'),
    });
  });
});

describe('receivers written from the root', () => {
  it('a Rust path from the root or with a turbofish and a PHP name from the global namespace are kept as paths, not "something"', async () => {
    const rust = await extractFile('tests/regression.rs', ['fn build() {', '    let re = ::regex::bytes::Regex::new("a").unwrap();', '    let v = Vec::<u8>::new();', '}', ''].join('\n'), 'rust', await grammarFor('rust'), { size: 0, mtimeMs: 0, hash: '' });
    const php = await extractFile('app/Http/Controller.php', ['<?php', 'function show($s) {', '    return \\App\\Support\\Str::slug($s);', '}', ''].join('\n'), 'php', await grammarFor('php'), { size: 0, mtimeMs: 0, hash: '' });
    expect({ rust: rust.calls.map((c) => `${c.recv}::${c.name}`), php: php.calls.map((c) => `${c.recv}::${c.name}`) }).toEqual({
      rust: ['::regex::bytes::Regex::new', '…::unwrap', 'Vec::new'],
      php: ['\\App\\Support\\Str::slug'],
    });
  });
});

describe('Rust impls for a library type', () => {
  it('Vec::new() may be std\'s own new, not the workspace\'s impl of a trait for Vec: matched by name only; SmallVec::new() is the inherent new, not the trait impl\'s', async () => {
    const [callers, own] = await run(
      {
        'benches/bench.rs': [
          'trait Vector<T>: for<\'a> From<&\'a [T]> + Extend<T> {',
          '    fn new() -> Self;',
          '}',
          '',
          'impl<T: Copy> Vector<T> for Vec<T> {',
          '    fn new() -> Self {',
          '        Self::with_capacity(VEC_SIZE)',
          '    }',
          '}',
          '',
          'impl<T: Copy> Vector<T> for SmallVec<[T; VEC_SIZE]> {',
          '    fn new() -> Self {',
          '        Self::new()',
          '    }',
          '}',
          '',
          'fn gen_push<V: Vector<u64>>(n: u64, b: &mut Bencher) {',
          '    let mut vec = Vec::new();',
          '    vec.push(n);',
          '    let mut small: SmallVec<[u64; 16]> = SmallVec::new();',
          '    small.push(n);',
          '}',
          '',
        ].join('\n'),
        'src/lib.rs': ['pub struct SmallVec<A: Array> {', '    capacity: usize,', '}', '', 'impl<A: Array> SmallVec<A> {', '    pub fn new() -> SmallVec<A> {', '        SmallVec { capacity: 0 }', '    }', '}', ''].join('\n'),
      },
      [
        ['code_refs', { symbol: 'Vec.new', direction: 'callers', depth: 1 }],
        ['code_refs', { symbol: 'src/lib.rs:SmallVec.new', direction: 'callers', depth: 1 }],
      ],
    );
    expect(callers).toBe(['callers of Vec.new (benches/bench.rs:6):', '  benches/bench.rs:18 gen_push (matched by method name only; receiver type unknown)'].join('\n'));
    // SmallVec::new() and Self::new() in the trait impl are the type's own new, not the trait's (Rust looks in the inherent impl first).
    expect(own).toBe(['callers of SmallVec.new (src/lib.rs:6):', '  benches/bench.rs:13 SmallVec.new', '  benches/bench.rs:20 gen_push'].join('\n'));
  });
});

describe('static calls in C++ and PHP', () => {
  it('C++: Type::method() goes to that class; a class the workspace does not define (Qt) leaves it instead of matching every method of the name', async () => {
    const [counter, create] = await run(
      {
        'src/widget.h': ['#pragma once', '#include <QString>', '', 'class Widget {', 'public:', '    static Widget *create(int id);', '    void setTitle(const QString &title);', '', 'private:', '    QString title_;', '};', ''].join('\n'),
        'src/widget.cpp': [
          '#include "widget.h"',
          '',
          'Widget *Widget::create(int id) {',
          '    Widget *w = new Widget();',
          '    w->setTitle(QString::number(id));',
          '    return w;',
          '}',
          '',
          'void Widget::setTitle(const QString &title) {',
          '    title_ = title;',
          '}',
          '',
        ].join('\n'),
        'src/counter.cpp': ['class Counter {', 'public:', '    int number() const { return n_; }', '', 'private:', '    int n_ = 0;', '};', ''].join('\n'),
        'src/main.cpp': ['#include "widget.h"', '', 'int main() {', '    Widget *w = Widget::create(1);', '    delete w;', '    return 0;', '}', ''].join('\n'),
      },
      [
        ['code_refs', { symbol: 'Counter.number', direction: 'callers', depth: 1 }],
        ['code_refs', { symbol: 'Widget.create', direction: 'callers', depth: 1 }],
      ],
    );
    expect(counter).toBe(['callers of Counter.number (src/counter.cpp:3):', '  no call sites found in the index'].join('\n'));
    expect(create).toBe(['callers of Widget.create (src/widget.cpp:3):', '  src/main.cpp:4 main'].join('\n'));
  });

  it('PHP: Class::method() goes to that class; a facade of a library leaves the workspace', async () => {
    const [get, format] = await run(
      {
        'app/Http/UserController.php': [
          '<?php',
          '',
          'namespace App\\Http;',
          '',
          'use App\\Support\\Formatter;',
          'use Illuminate\\Support\\Facades\\Cache;',
          '',
          'class UserController',
          '{',
          '    public function show($id)',
          '    {',
          '        $user = Cache::get("user:$id");',
          '        return Formatter::format($user);',
          '    }',
          '}',
          '',
        ].join('\n'),
        'app/Support/Formatter.php': ['<?php', '', 'namespace App\\Support;', '', 'class Formatter', '{', '    public static function format($value)', '    {', '        return json_encode($value);', '    }', '}', ''].join('\n'),
        'app/Support/Store.php': ['<?php', '', 'namespace App\\Support;', '', 'class Store', '{', '    private $items = [];', '', '    public function get($key)', '    {', '        return $this->items[$key] ?? null;', '    }', '}', ''].join('\n'),
      },
      [
        ['code_refs', { symbol: 'Store.get', direction: 'callers', depth: 1 }],
        ['code_refs', { symbol: 'Formatter.format', direction: 'callers', depth: 1 }],
      ],
    );
    expect(get).toBe(['callers of Store.get (app/Support/Store.php:9):', '  no call sites found in the index'].join('\n'));
    expect(format).toBe(['callers of Formatter.format (app/Support/Formatter.php:7):', '  app/Http/UserController.php:13 UserController.show'].join('\n'));
  });
});

describe('signatures', () => {
  const sigs = async (lang: string, path: string, text: string) =>
    extractFile(path, text, lang, await grammarFor(lang), { size: 0, mtimeMs: 0, hash: '' }).symbols.map((s) => `${s.name} ${s.sig}`);

  it('a parameter list a formatter broke over lines reads as one written on one: no space inside the parentheses, no trailing comma', async () => {
    expect(
      await sigs('rust', 'src/re_bytes.rs', [
        'impl Regex {',
        '    pub fn shortest_match_at(',
        '        &self,',
        '        text: &[u8],',
        '        start: usize,',
        '    ) -> Option<usize> {',
        '        self.0.searcher().shortest_match_at(text, start)',
        '    }',
        '',
        '    pub fn pair(&self) -> (u8,) {',
        '        (0,)',
        '    }',
        '}',
        '',
      ].join('\n')),
    ).toEqual(['Regex ', 'shortest_match_at (&self, text: &[u8], start: usize) -> Option<usize>', 'pair (&self) -> (u8,)']);
    expect(
      await sigs('go', 'net/http/server.go', [
        'package http',
        '',
        'func (c *conn) readRequest(',
        '\tctx context.Context,',
        ') (w *response, err error) {',
        '\treturn nil, nil',
        '}',
        '',
      ].join('\n')),
    ).toEqual(['readRequest (ctx context.Context) (w *response, err error)']);
    expect(
      await sigs('python', 'lib/csv.py', [
        'def reader(',
        '    csvfile,',
        '    dialect="excel",',
        '    **fmtparams,',
        '):',
        '    pass',
        '',
      ].join('\n')),
    ).toEqual(['reader (csvfile, dialect="excel", **fmtparams)']);
    expect(
      await sigs('typescript', 'src/tools.ts', [
        'export async function runSearch(',
        '  index: CodeIndex,',
        '  args: SearchArgs,',
        '  ctx: ToolContext,',
        '): Promise<ToolOutput> {',
        '  return { output: "" };',
        '}',
        '',
      ].join('\n')),
    ).toEqual(['runSearch (index: CodeIndex, args: SearchArgs, ctx: ToolContext): Promise<ToolOutput>']);
  });
});
