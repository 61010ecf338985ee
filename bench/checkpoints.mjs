// npm run bench, the checkpoints part: what a checkpoint costs on a 3,000-file, 40 MB workspace
// (the first of a workspace, the first of a later session, and each turn that changes ten files),
// the shadow repository's size on disk beside the workspace's, and, for the choice between the
// shadow repository and snapshots of files, what walking and stat-ing that tree from Node costs;
// and a rewind putting back 300 files a bash command rewrote (each written through its folder's descriptor).
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (dir) => Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]);

function walk(dir, out) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(lstatSync(p).size);
  }
  return out;
}

/** Rows for the table, measured on a copy of `tree` with the bundled Checkpoints class and rewind functions. */
export async function checkpointRows({ Checkpoints, planRewind, applyRewind }, tree) {
  const base = mkdtempSync(join(tmpdir(), 'feiyu-bench-cp-'));
  try {
    const ws = join(base, 'ws');
    execFileSync('cp', ['-r', tree, ws]);
    const state = join(base, 'state');
    const events = { off: (w) => { throw new Error(`checkpoints off: ${JSON.stringify(w)}`); }, failed: (m) => { throw new Error(m); }, skipped() {} };
    const open = (id) => new Checkpoints({ root: ws, stateDir: state, sessionId: id, env: { PATH: process.env.PATH, HOME: base }, events });
    /** One turn: its start checkpoint (timed), `change`, its end checkpoint (timed). */
    const turn = async (cp, change = () => {}) => {
      cp.turnStarted('bench', { messages: 0 });
      let t0 = performance.now();
      await cp.beforeChange();
      const start = performance.now() - t0;
      change();
      t0 = performance.now();
      cp.turnEnded();
      await cp.idle();
      return { start, end: performance.now() - t0 };
    };
    const cp = open('first');
    const first = (await turn(cp)).start;
    const ends = [];
    for (let i = 0; i < 10; i++) {
      const r = await turn(cp, () => {
        for (let f = 0; f < 10; f++) writeFileSync(join(ws, `pkg${f}`, `mod${f % 7}`, `touched${i}-${f}.ts`), `export const turn${i} = ${f};\n`);
      });
      ends.push(r.end);
    }
    const later = (await turn(open('second'))).start;
    const disk = kb(join(state, 'checkpoints'));
    const walks = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      walk(ws, []);
      walks.push(performance.now() - t0);
    }
    const each = median(ends);
    const rewinder = open('rewind');
    const mods = execFileSync('find', ['.', '-name', '*.ts'], { cwd: ws, encoding: 'utf8' }).split('\n').filter(Boolean).slice(0, 300);
    await turn(rewinder, () => execFileSync('/bin/sh', ['-c', 'for f in "$@"; do echo "// rewritten" >> "$f"; done', 'sh', ...mods], { cwd: ws }));
    let t0 = performance.now();
    const plan = await planRewind(rewinder, rewinder.turns.at(-1).n);
    const planned = performance.now() - t0;
    t0 = performance.now();
    const out = await applyRewind(rewinder, plan, true);
    const applied = performance.now() - t0;
    if (out.restored.length !== mods.length) throw new Error(`rewind put back ${out.restored.length} of ${mods.length} files`);
    return [
      ['checkpoint, 3,000 files / 40 MB: first of a workspace / of a later session', `${first.toFixed(0)} / ${later.toFixed(0)} ms`, '', true],
      ['checkpoint after a turn that changed 10 files (median of 10)', `${each.toFixed(0)} ms`, '≤ 100 ms', each <= 100],
      ['checkpoints on disk after 11 turns (the workspace itself)', `${(disk / 1024).toFixed(1)} MB (${(kb(ws) / 1024).toFixed(1)} MB)`, '', true],
      ['  walking and stat-ing that tree from Node (a snapshot scan)', `${median(walks).toFixed(0)} ms`, '', true],
      ['rewind of 300 files a bash command rewrote: plan / put back', `${planned.toFixed(0)} / ${applied.toFixed(0)} ms`, '≤ 2,000 ms', planned + applied <= 2000],
    ];
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
