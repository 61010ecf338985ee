// The code index on the shapes real non-TypeScript code takes: C prototypes and typedefs of
// pointers, macros, comments between a header and its body, Java overloads, CRLF and BOM files.
// Each case is what a real file (CPython's library, glibc's headers, zlib, the JDK) showed.
import { describe, expect, it } from 'vitest';
import { defs, parse, run } from './codeindex-helpers.js';

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
    expect(defs(c)).toEqual(['function f@1 (void): int']);
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
      'function memcpy@1 (void *__restrict __dest, const void *__restrict __src, size_t __n): void * [decl]',
      'function split@2 (const char *s, char sep): char ** [decl]',
      'function split_all@3 (const char *s): char **',
      'type cmp_fn@4 (const void *, const void *): int',
      'type node_ptr@5 ',
      'macro NEXT@6 ()',
      'const MAX_WBITS@8 = 15',
      'macro FLUSHCODE@10 ()',
    ]);
  });
});

describe('return types written before the name', () => {
  it('Java: after the parameters (and type parameters before them), without modifiers or annotations; constructors have none', async () => {
    const r = await parse('java', 'util/Table.java', [
      'package util;',
      'public abstract class Table<K, V> {',
      '  public Table() { }',
      '  @Override',
      '  public V get(Object key) { return null; }',
      '  public static <T> List<T> of(T... xs) { return null; }',
      '  public final synchronized int[] sizes() throws IOException { return null; }',
      '  abstract Map.Entry<K, V> first();',
      '  interface Visitor { void visit(K key, V value); }',
      '}',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'class Table@2 <K, V>',
      'method Table.Table@3 ()',
      'method Table.get@4 (Object key): V',
      'method Table.of@6 <T>(T... xs): List<T>',
      'method Table.sizes@7 (): int[] throws IOException',
      'method Table.first@8 (): Map.Entry<K, V> [decl]',
      'interface Table.Visitor@9 ',
      'method Visitor.visit@9 (K key, V value): void [decl]',
    ]);
  });

  it('C#: after the parameters, before a where clause; constructors have none', async () => {
    const r = await parse('csharp', 'Shop/Cart.cs', [
      'namespace Shop {',
      '  public class Cart {',
      '    public Cart(int size) { }',
      '    public async Task<T> Get<T>(int id) where T : class { return null; }',
      '    public override string ToString() { return ""; }',
      '    static int[] Sizes() => null;',
      '  }',
      '  public interface IStore { void Save(Cart cart); }',
      '}',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'namespace Shop@1 ',
      'class Shop.Cart@2 ',
      'method Cart.Cart@3 (int size)',
      'method Cart.Get@4 <T>(int id): Task<T> where T : class',
      'method Cart.ToString@5 (): string',
      'method Cart.Sizes@6 (): int[]',
      'interface Shop.IStore@8 ',
      'method IStore.Save@8 (Cart cart): void [decl]',
    ]);
  });

  it('C: the pointers of the declarator belong to the return type, storage classes do not; a function pointer typedef returns its type; an export macro hides it', async () => {
    const r = await parse('cpp', 'str.c', [
      'extern char *strdup (const char *__s) __THROW __attribute_malloc__;',
      'char **split(const char *s, char sep);',
      'static inline const char *name(void) { return "x"; }',
      'static char const * const *table(void) { return 0; }',
      'unsigned long hash(const char *s) { return 0; }',
      'struct node *next_of(struct node *n);',
      'typedef int (*cmp_fn)(const void *, const void *);',
      'typedef struct node *node_ptr;',
      'SQLITE_API int sqlite3_open(const char *f);',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'function strdup@1 (const char *__s): char * [decl]',
      'function split@2 (const char *s, char sep): char ** [decl]',
      'function name@3 (void): const char *',
      'function table@4 (void): char const * const *',
      'function hash@5 (const char *s): unsigned long',
      'function next_of@6 (struct node *n): struct node * [decl]',
      'type cmp_fn@7 (const void *, const void *): int',
      'type node_ptr@8 ',
      'function sqlite3_open@9 (const char *f) [decl]',
    ]);
  });

  it('C++: after the declarator and its qualifiers; none for constructors, destructors or a trailing return type; no virtual or constexpr', async () => {
    const r = await parse('cpp', 'shape.cpp', [
      'namespace geo {',
      'class Shape {',
      ' public:',
      '  Shape(int sides);',
      '  virtual double area() const = 0;',
      '  const std::string &name() const { return name_; }',
      '  auto id() -> int { return 0; }',
      '  bool operator==(const Shape &o) const { return true; }',
      '};',
      '}',
      'std::vector<int> Shape::points() const { return {}; }',
      'Shape::~Shape() { }',
      'template <typename T> T max_of(T a, T b) { return a; }',
      'inline int &counter() { static int c; return c; }',
      'constexpr int squared(int x) { return x * x; }',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'namespace geo@1 ',
      'class geo.Shape@2 ',
      'method Shape.Shape@4 (int sides) [decl]',
      'method Shape.area@5 () const: double = 0 [decl]',
      'method Shape.name@6 () const: const std::string &',
      'method Shape.id@7 () -> int',
      'method Shape.operator==@8 (const Shape &o) const: bool',
      'method Shape.points@11 () const: std::vector<int>',
      'method Shape.~Shape@12 ()',
      'function max_of@13 (T a, T b): T',
      'function counter@14 (): int &',
      'function squared@15 (int x): int',
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
