// Call-graph accuracy for the code index benchmark: code_refs callers of 50 functions against the
// call sites TypeScript's language service finds. The functions are drawn by hash from every
// function, method and function-valued constant the compiler sees in non-test files, among those
// the language service finds called at least once. Prints precision and recall, micro-averaged.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SAMPLE = Number(process.env.FEIYU_BENCH_REFS_SAMPLE) || 50;
const isTest = (p) => /\.(test|spec)\.[cm]?[jt]sx?$/.test(p);

export async function callGraphAccuracy(ci, root, stateDir, workerFile, row) {
  const ts = (await import('typescript')).default;
  const index = new ci.CodeIndex({ root, stateDir, env: process.env, mode: 'on', workerFile });
  await index.start();
  const files = [...index.data.files.keys()].filter((p) => /\.tsx?$/.test(p)).sort();
  const ls = languageService(ts, root, files, {});
  const paths = workspacePaths(ts, ls, root, files);
  const service = Object.keys(paths).length ? languageService(ts, root, files, paths) : ls;
  const program = service.getProgram();

  const candidates = [];
  for (const rel of files.filter((f) => !isTest(f))) {
    const sf = program.getSourceFile(join(root, rel));
    if (sf) collectFunctions(ts, sf, rel, candidates);
  }
  candidates.sort((a, b) => (a.key < b.key ? -1 : 1));

  // Micro sums over all call sites, and per-function ratios for the macro average.
  const sums = { direct: 0, all: 0, certain: 0, certainDirect: 0, certainAll: 0, edges: 0, edgesAll: 0, missing: 0 };
  const perFunction = [];
  let taken = 0;
  for (const c of candidates) {
    if (taken >= SAMPLE) break;
    const truth = callSites(ts, service, program, root, c);
    if (!truth.all.size) continue;
    taken++;
    sums.direct += truth.direct.size;
    sums.all += truth.all.size;
    const ref = ourSymbol(index, c);
    if (!ref) {
      sums.missing++;
      perFunction.push({ precision: 1, recall: 0 });
      continue;
    }
    const ours = new Map();
    for (const e of index.data.graph.callersOf(ref)) ours.set(`${e.path}:${e.line}`, e.how);
    let certain = 0;
    let hitDirect = 0;
    for (const [key, how] of ours) {
      sums.edges++;
      if (truth.all.has(key)) sums.edgesAll++;
      if (!ci.CERTAIN.has(how)) continue;
      certain++;
      if (truth.all.has(key)) sums.certainAll++;
      if (truth.direct.has(key)) hitDirect++;
    }
    sums.certain += certain;
    sums.certainDirect += hitDirect;
    perFunction.push({ precision: certain ? [...ours].filter(([k, h]) => ci.CERTAIN.has(h) && truth.all.has(k)).length / certain : 1, recall: truth.direct.size ? hitDirect / truth.direct.size : 1 });
    if (process.env.FEIYU_BENCH_VERBOSE) {
      for (const [key, how] of ours) if (!truth.all.has(key) && ci.CERTAIN.has(how)) console.log('wrong', c.path, c.name, key, how, describeCall(index, key));
      for (const key of truth.direct) if (!ci.CERTAIN.has(ours.get(key))) console.log('miss ', c.path, c.name, key, ours.get(key) ?? '-', describeCall(index, key));
    }
  }
  await index.close();
  const r = (a, b) => (b ? a / b : 0);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
  const micro = { p: r(sums.certainAll, sums.certain), r: r(sums.certainDirect, sums.direct) };
  const macro = { p: mean(perFunction.map((f) => f.precision)), r: mean(perFunction.map((f) => f.recall)) };
  row(`  code_refs callers vs TypeScript's language service (${taken} functions)`, `${sums.all} call sites, ${sums.direct} direct`, '', true);
  row('    certain edges, precision / recall of direct calls (micro)', `${micro.p.toFixed(2)} / ${micro.r.toFixed(2)}`, '≥ 0.9 / ≥ 0.8', micro.p >= 0.9 && micro.r >= 0.8);
  row('    the same, averaged per function (macro)', `${macro.p.toFixed(2)} / ${macro.r.toFixed(2)}`, '≥ 0.9 / ≥ 0.8', macro.p >= 0.9 && macro.r >= 0.8);
  row('    certain edges: recall of all references (polymorphic too)', r(sums.certainAll, sums.all).toFixed(2), '', true);
  row('    all edges incl. uncertain: precision / recall of all references', `${r(sums.edgesAll, sums.edges).toFixed(2)} / ${r(sums.edgesAll, sums.all).toFixed(2)}`, '', true);
  if (sums.missing) row('    functions the index has no symbol for', String(sums.missing), '', true);
  if (Object.keys(paths).length) row('    workspace packages mapped for the compiler', Object.keys(paths).filter((k) => !k.endsWith('*')).join(', '), '', true);
}

function languageService(ts, root, files, paths) {
  const options = {
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.Preserve,
    skipLibCheck: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    types: [],
    baseUrl: root,
    paths,
  };
  const abs = files.map((f) => join(root, f));
  const texts = new Map();
  const host = {
    getScriptFileNames: () => abs,
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => {
      if (!texts.has(f)) texts.set(f, ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(readFileSync(f, 'utf8')) : undefined);
      return texts.get(f);
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/**
 * A monorepo copied without its package.json files imports its packages by name. For each bare
 * specifier the compiler cannot resolve, the package entry (a src/index.ts) exporting most of the
 * names imported from it is taken, and its folder for sub-paths.
 */
function workspacePaths(ts, ls, root, files) {
  const program = ls.getProgram();
  const checker = program.getTypeChecker();
  const entries = files.filter((f) => /(^|\/)src\/index\.tsx?$/.test(f)).map((f) => {
    const sf = program.getSourceFile(join(root, f));
    const sym = sf && checker.getSymbolAtLocation(sf);
    return { file: f, names: new Set(sym ? checker.getExportsOfModule(sym).map((s) => s.name) : []) };
  });
  const imported = new Map();
  for (const rel of files) {
    const sf = program.getSourceFile(join(root, rel));
    for (const st of sf?.statements ?? []) {
      if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
      const spec = st.moduleSpecifier.text;
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      if (ts.resolveModuleName(spec, join(root, rel), program.getCompilerOptions(), ts.sys).resolvedModule) continue;
      const names = imported.get(spec) ?? new Set();
      const bindings = st.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) names.add((el.propertyName ?? el.name).text);
      imported.set(spec, names);
    }
  }
  const paths = {};
  for (const [spec, names] of imported) {
    if (!names.size) continue;
    let best = null;
    // The package's folder must be named in the specifier (pi-ai → ai/), so a re-export of a real dependency is not taken for it.
    const last = spec.split('/').filter((s) => !s.startsWith('@')).at(0) ?? spec;
    for (const e of entries.filter((e) => last.includes(e.file.replace(/\/src\/index\.tsx?$/, '').split('/').pop()))) {
      const overlap = [...names].filter((n) => e.names.has(n)).length;
      if (overlap > names.size / 2 && (!best || overlap > best.overlap)) best = { ...e, overlap };
    }
    if (!best) continue;
    paths[spec] = [best.file];
    paths[`${spec}/*`] = [best.file.replace(/index\.tsx?$/, '*')];
  }
  return paths;
}

/** Named functions, class methods and top-level constants holding functions, keyed by a hash for sampling. */
function collectFunctions(ts, sf, rel, out) {
  const add = (nameNode) => {
    const line = sf.getLineAndCharacterOfPosition(nameNode.getStart(sf)).line + 1;
    const name = nameNode.text;
    out.push({ path: rel, name, line, pos: nameNode.getStart(sf), key: createHash('sha1').update(`${rel}:${name}:${line}`).digest('hex') });
  };
  const visit = (node, depth) => {
    if (ts.isFunctionDeclaration(node) && node.name && node.body) add(node.name);
    else if (ts.isMethodDeclaration(node) && node.body && ts.isIdentifier(node.name) && ts.isClassLike(node.parent)) add(node.name);
    else if (ts.isVariableStatement(node) && depth === 0) {
      for (const d of node.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) add(d.name);
      }
    }
    if (ts.isClassLike(node) || ts.isSourceFile(node) || ts.isModuleBlock(node) || ts.isModuleDeclaration(node)) ts.forEachChild(node, (c) => visit(c, ts.isSourceFile(node) ? 0 : depth + 1));
  };
  visit(sf, -1);
}

/**
 * The lines where the language service finds the function called (or constructed), as path:line:
 * `all` of them, and the `direct` ones whose call the checker resolves to this very declaration
 * (the rest go through an interface or a base type and may reach other implementations too).
 */
function callSites(ts, service, program, root, c) {
  const all = new Set();
  const direct = new Set();
  const checker = program.getTypeChecker();
  for (const group of service.findReferences(join(root, c.path), c.pos) ?? []) {
    for (const ref of group.references) {
      if (ref.isDefinition) continue;
      const sf = program.getSourceFile(ref.fileName);
      if (!sf) continue;
      const node = findNode(ts, sf, ref.textSpan.start);
      const call = node && callOf(ts, node);
      if (!call) continue;
      const key = `${ref.fileName.slice(root.length + 1)}:${sf.getLineAndCharacterOfPosition(ref.textSpan.start).line + 1}`;
      all.add(key);
      const decl = checker.getResolvedSignature(call)?.declaration;
      const declName = decl && decl.name ? decl.name : decl && ts.isVariableDeclaration(decl.parent) ? decl.parent.name : undefined;
      if (declName && declName.getSourceFile().fileName === join(root, c.path) && declName.getStart() === c.pos) direct.add(key);
      else if (decl && ts.isClassDeclaration(decl) && decl.name?.getStart() === c.pos) direct.add(key);
    }
  }
  return { all, direct };
}

function findNode(ts, sf, pos) {
  let hit;
  const visit = (node) => {
    if (pos < node.getStart(sf) || pos >= node.getEnd()) return;
    hit = node;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return hit && ts.isIdentifier(hit) ? hit : undefined;
}

/** The call or new expression `id` is the callee of, if any. */
function callOf(ts, id) {
  let expr = id;
  if (ts.isPropertyAccessExpression(id.parent) && id.parent.name === id) expr = id.parent;
  const parent = expr.parent;
  return (ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression === expr ? parent : undefined;
}

function describeCall(index, key) {
  const [path, line] = key.split(':');
  const rec = index.data.files.get(path)?.record;
  return (rec?.calls ?? []).filter((c) => c.line === Number(line)).map((c) => `${c.recv ?? ''}.${c.name}`).join(' ') || '?';
}

function ourSymbol(index, c) {
  const record = index.data.files.get(c.path)?.record;
  if (!record) return null;
  let best = null;
  record.symbols.forEach((s, i) => {
    if (s.name !== c.name || Math.abs(s.line - c.line) > 2) return;
    if (!best || Math.abs(s.line - c.line) < Math.abs(record.symbols[best.index].line - c.line)) best = { path: c.path, index: i };
  });
  return best;
}
