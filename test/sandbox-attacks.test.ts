// The attack battery (attacks.ts) against the real bwrap through the launcher, as root and as an
// ordinary user (nobody, through setpriv; needs root to switch, skipped with a message otherwise):
// read-only commands, and commands that may write at the workspace and strict levels. Every
// attack runs as its own command; the effects are looked for on the host afterwards: none.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLauncher } from '../src/safety/sandboxhost.js';
import { probeSandbox } from '../src/safety/sandboxprobe.js';
import type { SandboxProfile } from '../src/types/tools.js';
import { attacks, buildPlace, effects, runLaunch, snapshot, treeDigest, useAttackTargets } from './attacks.js';
import { currentTest } from './scope.js';

const probe = await probeSandbox();
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
if (!isRoot) console.warn('sandbox-attacks: not root, so the battery runs as this user only (root is needed to run it as root and as nobody)');

const users: { name: string; uid?: number }[] = isRoot ? [{ name: 'root' }, { name: 'an ordinary user (nobody)', uid: NOBODY }] : [{ name: 'this user' }];
const combos: { profile: SandboxProfile; level: 'workspace' | 'strict' }[] = [
  { profile: 'read', level: 'workspace' },
  { profile: 'write', level: 'workspace' },
  { profile: 'write', level: 'strict' },
];

describe.skipIf(!probe.ok)('the attack battery against the sandbox', () => {
  const targets = useAttackTargets();
  let agent: ChildProcess;
  beforeAll(() => {
    // A stand-in for the agent outside the sandbox, with a secret in its environment.
    agent = spawn('sleep', ['300'], { env: { PATH: process.env.PATH, FEIYU_AGENT: 'AGENT_ENV_SECRET' }, stdio: 'ignore' });
  });
  afterAll(() => {
    agent.kill();
  });

  for (const user of users) {
    for (const { profile, level } of combos) {
      it(`${profile} commands at the ${level} level, as ${user.name}: no effect`, async () => {
        const base = realpathSync(mkdtempSync('/var/tmp/feiyu-attack-'));
        try {
          const p = buildPlace(base, user.uid);
          const socketFile = createNetServer().listen(join(p.run, 'agent.sock'));
          const launcher = createLauncher({ level, root: p.ws, home: p.home, configDir: p.config, stateDir: p.state, runtimeDir: p.run, network: false, features: probe.ok ? probe.features : { userns: false, disableUserns: false }, contain: probe.contain });
          const before = snapshot(p);
          const wsBefore = treeDigest(p.ws);
          targets.hits.n = 0;
          const env = { PATH: process.env.PATH, HOME: p.home, SSH_AUTH_SOCK: join(p.run, 'agent.sock'), LANG: 'C', ...currentTest().env };
          const outputs: string[] = [];
          const battery = attacks(p, targets.port(), agent.pid!).filter((a) => a.profiles.includes(profile === 'read' ? 'read' : 'write'));
          for (const a of battery) {
            const r = await runLaunch(launcher({ command: a.command, cwd: p.ws, profile, env }), p.ws, user.uid);
            outputs.push(`${a.id}: ${r.out}`);
          }
          socketFile.close();
          const wsChanged = treeDigest(p.ws) !== wsBefore;
          const found = effects(p, before, outputs, targets.hits.n, user.uid);
          if (profile === 'read' && wsChanged) found.push('a read-only command changed the workspace');
          expect(found).toEqual([]);
          expect(battery.length).toBeGreaterThanOrEqual(profile === 'read' ? 32 : 29);
        } finally {
          rmSync(base, { recursive: true, force: true });
        }
      });
    }
  }
});
