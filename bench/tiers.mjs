// npm run bench, the tool tiers part: fixed tokens per request with deferred schemas and without
// (every tool, the code index's four included), each tool's tier and costs, the prompt-cache share
// of both placements of loaded schemas on both wire formats, and the requests deferral adds.
// `lib` is the bench's bundle of the sources (run.mjs builds it).

/** System prompt and declared schemas in o200k tokens, with deferred schemas and with them off; each tool's schema and cold line. */
async function fixedTokens(lib) {
  const { encode } = await import('gpt-tokenizer/encoding/o200k_base');
  const { fixedRequest, coldLine, specOf, codeTools } = lib;
  // Every tool feiyu has, the code index's four included (they exist only while it is on).
  const index = codeTools(() => {
    throw new Error('not run');
  });
  const count = (settings, more = index) => {
    const { system, tools, rows, offered } = fixedRequest('/home/user/project', settings, more);
    const perTool = rows.map((r) => {
      const tool = offered.find((t) => t.name === r.name);
      return { name: r.name, tier: r.tier, schema: encode(JSON.stringify(tool ? specOf(tool) : tools.find((t) => t.name === r.name))).length, line: r.tier === 'cold' ? encode(coldLine(tool) + '\n').length : 0 };
    });
    return { system: encode(system).length, tools: encode(JSON.stringify(tools)).length, count: tools.length, perTool };
  };
  return { deferred: count({}), off: count({ deferTools: false }), noIndex: count({}, []), offNoIndex: count({ deferTools: false }, []) };
}

/** The scripted sessions of test/cache-scenario.ts against the fake server's prompt cache: usage and cache share per wire format and design, requests deferral adds. */
async function deferredSessions(lib) {
  const { startFakeServer, cacheSession, deferralTask } = lib;
  const server = await startFakeServer({ promptCache: true });
  const share = {};
  const extra = {};
  try {
    for (const format of ['anthropic', 'openai']) {
      for (const design of ['conversation', 'tools', 'off']) {
        server.reset();
        share[`${format} ${design}`] = await cacheSession(server, format, design);
      }
      server.reset();
      const deferred = await deferralTask(server, format, 'conversation');
      server.reset();
      const off = await deferralTask(server, format, 'off');
      extra[format] = { deferred: deferred.requests, off: off.requests };
    }
  } finally {
    await server.close();
  }
  return { share, extra };
}

/** The rows of the table: [measure, value, target, ok]. */
export async function tierRows(lib) {
  const rows = [];
  const row = (what, value, target, pass) => rows.push([what, value, target, pass ? 'ok' : 'OVER']);
  const tk = await fixedTokens(lib);
  const fixed = tk.deferred.system + tk.deferred.tools;
  const sum = (c) => `${c.system + c.tools} (${c.system} + ${c.tools})`;
  row(`fixed tokens per request, all ${tk.deferred.perTool.length - 2} tools (system + ${tk.deferred.count} declared, o200k)`, sum(tk.deferred), '≤ 1,100', fixed <= 1100);
  row(`  the same with deferTools: false (${tk.off.count} declared)`, sum(tk.off), '', true);
  row(`  without the code index: deferred / deferTools: false`, `${sum(tk.noIndex)} / ${sum(tk.offNoIndex)}`, '', true);
  for (const t of tk.deferred.perTool) row(`  ${t.name}: ${t.tier}, schema / line tokens`, `${t.schema} / ${t.line}`, '', true);
  const ds = await deferredSessions(lib);
  for (const [key, { share, input, cacheRead, cacheWrite }] of Object.entries(ds.share)) {
    const design = key.endsWith('off') ? 'deferral off' : `loaded into the ${key.split(' ')[1]}`;
    const prompt = (input + cacheRead + cacheWrite).toLocaleString('en-US');
    row(`prompt-cache share (of all prompt tokens), 12 requests, 2 loaded in round 3: ${key.split(' ')[0]}, ${design}`, `${share.toFixed(3)} (of ${prompt})`, key.endsWith('conversation') ? '≥ 0.70' : '', !key.endsWith('conversation') || share >= 0.7);
  }
  for (const [format, { deferred, off }] of Object.entries(ds.extra)) row(`extra requests from deferral, 20-round task, 3 cold tools (${format})`, `${deferred - off} (${deferred} vs ${off})`, '≤ 3', deferred - off <= 3);
  return rows;
}
