// What the code index knows about each language: which files it parses with which grammar, one
// tree-sitter query per language for definitions, call sites and imports, and how the language
// scopes names (for call resolution). Data and small pure parsers; must not parse files itself.

import type { GrammarName } from '../util/treesitter.js';
import { goImports, javaImports, jsImports, pythonImports, rustImports, type ImportRecord } from './imports.js';

export { goImports, javaImports, jsImports, pythonImports, rustImports };

/** The kinds of symbol the index records. */
export type SymbolKind =
  | 'function' | 'method' | 'class' | 'interface' | 'type' | 'enum' | 'const' | 'var' | 'namespace' | 'module' | 'struct' | 'trait' | 'impl' | 'macro';

/** Module-level values: a constant, or a variable (`let`, `var`, a Python assignment, Rust's `static mut`). */
export const VALUE_KINDS: ReadonlySet<SymbolKind> = new Set(['const', 'var']);

/** Kinds whose members are methods of it (a function inside one is a method with that container). */
export const TYPE_KINDS: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'struct', 'trait', 'impl', 'enum']);
/** Kinds that scope their members without making them methods. */
export const SCOPE_KINDS: ReadonlySet<SymbolKind> = new Set(['namespace', 'module']);
/** Kinds a call can land on. */
export const CALLABLE_KINDS: ReadonlySet<SymbolKind> = new Set(['function', 'method', 'class', 'struct', 'macro']);

export type { ImportRecord } from './imports.js';

export type LanguageSpec = {
  grammar: GrammarName;
  /**
   * Definitions are captured as @def.<kind> with @name (and @body, @value, @owner where the
   * language has them); calls as @call with @callee (and @recv); imports as @import. Where the
   * return type is written before the name it is @ret, shown after @params (the parameter list,
   * in C and C++ the whole function declarator), and type parameters before the name @tparams.
   */
  query: string;
  /** Parses the text of an @import capture. */
  imports?: (text: string) => ImportRecord[];
  /** How doc comments are written: above the definition (`//`, `/**`, `#`) or as a docstring inside it. */
  doc: 'slash' | 'hash' | 'docstring';
  /**
   * How a bare call finds its definition beyond the file and its imports: nowhere (ES modules,
   * Python: every other name is a local or a builtin), the same folder (Go packages), or anywhere.
   */
  scope: 'module' | 'package' | 'global';
  /** The receivers that mean "this object". */
  selfNames: string[];
};

// An anonymous default export (`export default function (pi) {…}`, an extension's entry point) is named default.
const JS_DEFS = `
(function_declaration name: (_) @name body: (_) @body) @def.function
(generator_function_declaration name: (_) @name body: (_) @body) @def.function
(method_definition name: (_) @name body: (_) @body) @def.method
(class_declaration name: (_) @name body: (_) @body) @def.class
(export_statement "default" @name value: [(function_expression) (arrow_function)] @value @def.function)
(export_statement "default" @name value: (class body: (_) @body) @def.class)
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @value)) @def.const)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @value)) @def.const))
(program (variable_declaration (variable_declarator name: (identifier) @name value: (_)? @value)) @def.const)
(program (export_statement (variable_declaration (variable_declarator name: (identifier) @name value: (_)? @value)) @def.const))
(call_expression function: [(identifier) @callee (member_expression object: (_) @recv property: (_) @callee)]) @call
(new_expression constructor: [(identifier) @callee (member_expression object: (_) @recv property: (_) @callee)]) @call
(import_statement) @import
(export_statement source: (_)) @import
`;

/**
 * Receiver types, for resolving `x.method()` and `this.field.method()`: parameters and variables
 * with a declared type or a `new` value (@bind), and fields (@bind.field); @bind.type is a type,
 * @bind.new a constructor, @bind.alias another name of the same scope (`this.store = store`). A
 * variable holding a literal (`const lines = []`) has its type (no class); in TypeScript only
 * where no type is declared (`const h: Handler = {…}` is a Handler).
 */
const JS_BINDINGS = `
(variable_declarator name: (identifier) @bind.name value: (new_expression constructor: (_) @bind.new)) @bind
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @bind.name) right: (new_expression constructor: (_) @bind.new)) @bind.field
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @bind.name) right: (identifier) @bind.alias) @bind.field
`;

const TS_BINDINGS = `${JS_BINDINGS}
(variable_declarator name: (identifier) @bind.name !type value: [(array) (object) (string) (template_string) (regex)] @bind.type) @bind
(required_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(required_parameter (accessibility_modifier) pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind.field
(variable_declarator name: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(public_field_definition name: (property_identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind.field
(public_field_definition name: (property_identifier) @bind.name value: (new_expression constructor: (_) @bind.new)) @bind.field
`;

const TS_DEFS = `${JS_DEFS}${TS_BINDINGS}
(function_signature name: (_) @name) @def.function
(abstract_class_declaration name: (_) @name body: (_) @body) @def.class
(abstract_method_signature name: (_) @name) @def.method
(public_field_definition name: (_) @name value: [(arrow_function) (function_expression)] @value) @def.method
(interface_declaration name: (_) @name body: (_) @body) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name body: (_) @body) @def.enum
(internal_module name: (_) @name body: (_) @body) @def.namespace
`;

const JS_REQUIRE = `
(program (lexical_declaration (variable_declarator value: (call_expression function: (identifier) @_req (#eq? @_req "require")))) @import)
(program (variable_declaration (variable_declarator value: (call_expression function: (identifier) @_req (#eq? @_req "require")))) @import)
(field_definition property: (_) @name value: [(arrow_function) (function_expression)] @value) @def.method
(field_definition property: (property_identifier) @bind.name value: (new_expression constructor: (_) @bind.new)) @bind.field
(variable_declarator name: (identifier) @bind.name value: [(array) (object) (string) (template_string) (regex)] @bind.type) @bind
${JS_BINDINGS}`;

const PYTHON = `
(function_definition name: (identifier) @name body: (_) @body) @def.function
(class_definition name: (identifier) @name body: (_) @body) @def.class
(module (expression_statement (assignment left: (identifier) @name right: (_) @value) @def.var))
(call function: [(identifier) @callee (attribute object: (_) @recv attribute: (identifier) @callee)]) @call
(import_statement) @import
(import_from_statement) @import
(typed_parameter (identifier) @bind.name type: (type (_) @bind.type)) @bind
(typed_default_parameter name: (identifier) @bind.name type: (type (_) @bind.type)) @bind
(assignment left: (identifier) @bind.name type: (type (_) @bind.type)) @bind
(assignment left: (identifier) @bind.name right: (call function: (identifier) @bind.new)) @bind
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.name) right: (call function: (identifier) @bind.new) (#eq? @_self "self")) @bind.field
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.name) right: (identifier) @bind.alias (#eq? @_self "self")) @bind.field
`;

// Go: a const or var spec may define several names, of which the grammar's `name` field holds only
// the first (its other names are its only identifier children); `_` defines nothing. Receivers and
// parameters bind their names to their types (`func (srv *Server)` → srv.newConn() is Server's), as does a
// composite literal (`srv := &Server{…}`) and a var of a named type (`var b atomicBool`).
const GO = `
(function_declaration name: (identifier) @name body: (_)? @body) @def.function
(method_declaration receiver: (parameter_list (parameter_declaration type: [(type_identifier) @owner (pointer_type (type_identifier) @owner) (generic_type type: (type_identifier) @owner) (pointer_type (generic_type type: (type_identifier) @owner))])) name: (field_identifier) @name body: (_)? @body) @def.method
(type_spec name: (type_identifier) @name type: (_) @value) @def.type
(type_alias name: (type_identifier) @name type: (_) @value) @def.type
(method_elem name: (field_identifier) @name) @def.method
(source_file (const_declaration (const_spec (identifier) @name value: (_)? @value) @def.const) (#not-eq? @name "_"))
(source_file (var_declaration (var_spec (identifier) @name value: (_)? @value) @def.var) (#not-eq? @name "_"))
(source_file (var_declaration (var_spec_list (var_spec (identifier) @name value: (_)? @value) @def.var)) (#not-eq? @name "_"))
(call_expression function: [(identifier) @callee (selector_expression operand: (_) @recv field: (field_identifier) @callee)]) @call
(import_spec) @import
(parameter_declaration name: (identifier) @bind.name type: [(type_identifier) @bind.type (pointer_type (type_identifier) @bind.type) (generic_type type: (type_identifier) @bind.type) (pointer_type (generic_type type: (type_identifier) @bind.type))]) @bind
(short_var_declaration left: (expression_list . (identifier) @bind.name) right: (expression_list . [(composite_literal type: (type_identifier) @bind.new) (unary_expression operand: (composite_literal type: (type_identifier) @bind.new))])) @bind
(var_spec name: (identifier) @bind.name type: [(type_identifier) @bind.type (pointer_type (type_identifier) @bind.type)]) @bind
`;

const RUST = `
(function_item name: (identifier) @name body: (_) @body) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name body: (_)? @body) @def.struct
(enum_item name: (type_identifier) @name body: (_) @body) @def.enum
(union_item name: (type_identifier) @name) @def.struct
(trait_item name: (type_identifier) @name body: (_) @body) @def.trait
(impl_item trait: (_)? @owner type: [(type_identifier) @name (primitive_type) @name (generic_type type: (type_identifier) @name) (scoped_type_identifier name: (type_identifier) @name) (reference_type type: [(type_identifier) @name (primitive_type) @name (generic_type type: (type_identifier) @name) (array_type) @name (tuple_type) @name]) (array_type) @name (tuple_type) @name (unit_type) @name (pointer_type) @name] body: (_) @body) @def.impl
(mod_item name: (identifier) @name body: (_) @body) @def.module
(type_item name: (type_identifier) @name) @def.type
(const_item name: (identifier) @name) @def.const
(static_item name: (identifier) @name) @def.const
(macro_definition name: (identifier) @name . (macro_rule left: (_) @value)?) @def.macro
(call_expression function: [(identifier) @callee (field_expression value: (_) @recv field: (field_identifier) @callee) (scoped_identifier path: (_) @recv name: (identifier) @callee) (generic_function function: (identifier) @callee)]) @call
(macro_invocation macro: (identifier) @callee) @call
(use_declaration) @import
`;

const JAVA = `
(class_declaration name: (identifier) @name body: (_) @body) @def.class
(record_declaration name: (identifier) @name body: (_) @body) @def.class
(interface_declaration name: (identifier) @name body: (_) @body) @def.interface
(enum_declaration name: (identifier) @name body: (_) @body) @def.enum
(method_declaration type_parameters: (_)? @tparams type: (_) @ret name: (identifier) @name parameters: (_) @params body: (_)? @body) @def.method
(constructor_declaration type_parameters: (_)? @tparams name: (identifier) @name body: (_) @body) @def.method
(compact_constructor_declaration name: (identifier) @name body: (_) @body) @def.method
(annotation_type_declaration name: (identifier) @name body: (_) @body) @def.interface
(annotation_type_element_declaration type: (_) @ret name: (identifier) @name ")" @params) @def.method
(field_declaration (modifiers) @_mods type: (_) @ret declarator: (variable_declarator name: (identifier) @name value: (_)? @value) (#match? @_mods "static") (#match? @_mods "final")) @def.const
(constant_declaration type: (_) @ret declarator: (variable_declarator name: (identifier) @name value: (_)? @value)) @def.const
(method_invocation object: (_)? @recv name: (identifier) @callee) @call
(object_creation_expression type: [(type_identifier) @callee (generic_type (type_identifier) @callee)]) @call
(import_declaration) @import
(local_variable_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.name)) @bind
(formal_parameter type: (_) @bind.type name: (identifier) @bind.name) @bind
(field_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.name)) @bind.field
`;

const CSHARP = `
(class_declaration name: (identifier) @name body: (_) @body) @def.class
(record_declaration name: (identifier) @name) @def.class
(struct_declaration name: (identifier) @name body: (_) @body) @def.struct
(interface_declaration name: (identifier) @name body: (_) @body) @def.interface
(enum_declaration name: (identifier) @name body: (_) @body) @def.enum
(namespace_declaration name: (_) @name body: (_) @body) @def.namespace
(method_declaration returns: (_) @ret name: (identifier) @name parameters: (_) @params body: (_)? @body) @def.method
(constructor_declaration name: (identifier) @name body: (_)? @body) @def.method
(field_declaration (modifier) @_const (variable_declaration type: (_) @ret (variable_declarator name: (identifier) @name (_)? @value)) (#eq? @_const "const")) @def.const
(field_declaration (modifier) @_static (modifier) @_readonly (variable_declaration type: (_) @ret (variable_declarator name: (identifier) @name (_)? @value)) (#eq? @_static "static") (#eq? @_readonly "readonly")) @def.const
(invocation_expression function: [(identifier) @callee (member_access_expression expression: (_) @recv name: [(identifier) @callee (generic_name (identifier) @callee)]) (generic_name (identifier) @callee)]) @call
(object_creation_expression type: [(identifier) @callee (generic_name (identifier) @callee) (qualified_name name: (_) @callee)]) @call
`;

const CPP = `
(function_definition type: (_)? @ret declarator: [
  (function_declarator declarator: [(identifier) @name (field_identifier) @name (qualified_identifier scope: (_) @owner name: (_) @name) (destructor_name) @name (operator_name) @name]) @params
  (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (qualified_identifier scope: (_) @owner name: (_) @name)]) @params)
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (qualified_identifier scope: (_) @owner name: (_) @name)]) @params))
  (reference_declarator (function_declarator declarator: [(identifier) @name (field_identifier) @name (qualified_identifier scope: (_) @owner name: (_) @name)]) @params)
] body: (_) @body) @def.function
(field_declaration type: (_)? @ret declarator: (function_declarator declarator: (field_identifier) @name) @params) @def.method
(declaration type: (_)? @ret declarator: [
  (function_declarator declarator: (identifier) @name) @params
  (pointer_declarator declarator: (function_declarator declarator: (identifier) @name) @params)
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name) @params))
]) @def.function
(class_specifier name: (type_identifier) @name body: (_) @body) @def.class
(struct_specifier name: (type_identifier) @name body: (_) @body) @def.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @def.struct
(enum_specifier name: (type_identifier) @name body: (_) @body) @def.enum
(namespace_definition name: (_) @name body: (_) @body) @def.namespace
(type_definition type: (_) @ret declarator: [
  (type_identifier) @name
  (pointer_declarator declarator: (type_identifier) @name)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name))) @params
]) @def.type
(preproc_function_def name: (identifier) @name value: (_)? @body) @def.macro
(preproc_def name: (identifier) @name value: (_) @value) @def.const
(call_expression function: [(identifier) @callee (field_expression argument: (_) @recv field: (field_identifier) @callee) (qualified_identifier scope: (_) @recv name: (identifier) @callee) (template_function name: (identifier) @callee)]) @call
`;

// Ruby: `class Net::HTTPOK` defines HTTPOK in Net; `attr_reader :code` defines the method code (@value: how).
const RUBY = `
(method name: (_) @name body: (_)? @body) @def.method
(singleton_method name: (_) @name body: (_)? @body) @def.method
(class name: [(constant) @name (scope_resolution scope: (_) @owner name: (_) @name)] body: (_)? @body) @def.class
(module name: [(constant) @name (scope_resolution scope: (_) @owner name: (_) @name)] body: (_)? @body) @def.module
(call method: (identifier) @value arguments: (argument_list (simple_symbol) @name) (#match? @value "^attr_(reader|writer|accessor)$")) @def.method
(call receiver: (_)? @recv method: (identifier) @callee) @call
`;

const PHP = `
(function_definition name: (name) @name body: (_) @body) @def.function
(method_declaration name: (name) @name body: (_)? @body) @def.method
(class_declaration name: (name) @name body: (_) @body) @def.class
(interface_declaration name: (name) @name body: (_) @body) @def.interface
(trait_declaration name: (name) @name body: (_) @body) @def.trait
(enum_declaration name: (name) @name body: (_) @body) @def.enum
(function_call_expression function: [(name) @callee (qualified_name (name) @callee)]) @call
(member_call_expression object: (_) @recv name: (name) @callee) @call
(scoped_call_expression scope: (_) @recv name: (name) @callee) @call
(object_creation_expression [(name) @callee (qualified_name (name) @callee)]) @call
(assignment_expression left: (variable_name) @bind.name right: (object_creation_expression [(name) @bind.new (qualified_name (name) @bind.new)])) @bind
(simple_parameter type: (named_type [(name) @bind.type (qualified_name (name) @bind.type)]) name: (variable_name) @bind.name) @bind
(property_declaration type: (named_type [(name) @bind.type (qualified_name (name) @bind.type)]) (property_element name: (variable_name (name) @bind.name))) @bind.field
(assignment_expression left: (member_access_expression object: (variable_name) @_this name: (name) @bind.name) right: (object_creation_expression [(name) @bind.new (qualified_name (name) @bind.new)]) (#eq? @_this "$this")) @bind.field
`;

const BASH = `
(function_definition name: (word) @name body: (_) @body) @def.function
(command name: (command_name (word) @callee)) @call
`;

// ---------------------------------------------------------------------------------------------

const ES: Pick<LanguageSpec, 'imports' | 'doc' | 'scope' | 'selfNames'> = { imports: jsImports, doc: 'slash', scope: 'module', selfNames: ['this', 'super'] };

export const LANGUAGES: Record<string, LanguageSpec> = {
  typescript: { grammar: 'typescript', query: TS_DEFS, ...ES },
  tsx: { grammar: 'tsx', query: TS_DEFS, ...ES },
  javascript: { grammar: 'javascript', query: JS_DEFS + JS_REQUIRE, ...ES },
  python: { grammar: 'python', query: PYTHON, imports: pythonImports, doc: 'docstring', scope: 'module', selfNames: ['self', 'cls', 'super()'] },
  go: { grammar: 'go', query: GO, imports: goImports, doc: 'slash', scope: 'package', selfNames: [] },
  rust: { grammar: 'rust', query: RUST, imports: rustImports, doc: 'slash', scope: 'global', selfNames: ['self', 'Self'] },
  java: { grammar: 'java', query: JAVA, imports: javaImports, doc: 'slash', scope: 'global', selfNames: ['this', 'super'] },
  csharp: { grammar: 'c-sharp', query: CSHARP, doc: 'slash', scope: 'global', selfNames: ['this', 'base'] },
  cpp: { grammar: 'cpp', query: CPP, doc: 'slash', scope: 'global', selfNames: ['this'] },
  ruby: { grammar: 'ruby', query: RUBY, doc: 'hash', scope: 'global', selfNames: ['self'] },
  php: { grammar: 'php', query: PHP, doc: 'slash', scope: 'global', selfNames: ['$this', 'self', 'static', 'parent'] },
  bash: { grammar: 'bash', query: BASH, doc: 'hash', scope: 'global', selfNames: [] },
};

const EXTENSIONS: Record<string, keyof typeof LANGUAGES> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'tsx',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  py: 'python', pyi: 'python', go: 'go', rs: 'rust', java: 'java', cs: 'csharp',
  c: 'cpp', h: 'cpp', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp',
  rb: 'ruby', php: 'php', sh: 'bash', bash: 'bash',
};

/** The language of a path by its extension, or null for files the index does not parse. */
export function languageOf(path: string): string | null {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return null;
  return EXTENSIONS[path.slice(dot + 1).toLowerCase()] ?? null;
}
