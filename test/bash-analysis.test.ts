import { describe, it, expect } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeBash } from '../src/bash-analysis.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-ba-')));
const root = join(base, 'ws');
const home = join(base, 'home');
const configDir = join(home, '.config', 'feiyu');
mkdirSync(join(root, 'src'), { recursive: true });
mkdirSync(join(home, '.ssh'), { recursive: true });
mkdirSync(configDir, { recursive: true });
writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
writeFileSync(join(root, '.env'), 'A=1');
writeFileSync(join(root, 'src', 'a.ts'), '');
symlinkSync(join(home, '.ssh'), join(root, 'keys'));
const ctx = { root, cwd: root, home, configDir, path: '/usr/bin:/bin' };

const cmds = process.env.CMDS ? JSON.parse(process.env.CMDS) as string[] : [];
describe('scratch', () => {
  it('prints', async () => {
    for (const c of cmds) {
      const r = await analyzeBash(c, ctx);
      console.log(JSON.stringify(c), '=>', r.verdict, r.code, r.reason, r.destructive ? 'DESTRUCTIVE' : '', JSON.stringify(r.commands.map((x) => x.argv)));
    }
  });
});
