// The start-up probe: runs bwrap once with the flags of the tightest profile and checks, from
// inside, that a program it starts has no effective capability, that /proc shows only the
// sandbox's own processes and that kernel settings (/proc/sys) cannot be written. It tries a user
// namespace that cannot make more first, then a user namespace, then none (root, or a setuid
// bwrap). Failure means "sandbox unavailable". Beside it, whether the containment of --sandbox off
// works (contain.ts). Must not run commands for the tools.

import { spawn } from 'node:child_process';
import { probeContainment } from './contain.js';
import { BWRAP, buildBwrapArgv, type SandboxFeatures } from './sandbox.js';

export type ProbeReason = 'bwrap_missing' | 'userns_disabled' | 'bwrap_failed' | 'bwrap_unconfined';
type SandboxFinding = { ok: true; features: SandboxFeatures } | { ok: false; reasonCode: ProbeReason; detail: string };
/** The sandbox's finding, and `contain`: commands run without the sandbox can still be kept from outliving feiyu. */
export type ProbeResult = SandboxFinding & { contain: boolean };

const OK = 'feiyu-sandbox-ok';
// bash is the program bwrap starts (execve): its own status shows what any command gets. Builtins
// only, so the probe costs one process.
const CHECK = [
  'while read -r k v; do case $k in CapEff:) e=$v;; esac; done < /proc/self/status',
  'n=0; for p in /proc/[0-9]*; do n=$((n+1)); done',
  'w=no; [ -e /proc/sys/kernel/core_pattern ] && (exec 3>>/proc/sys/kernel/core_pattern) 2>/dev/null && w=yes',
  `if [ "$e" = 0000000000000000 ] && [ "$n" -le 4 ] && [ $w = no ]; then echo ${OK}; else echo "effective capabilities $e, $n processes visible in /proc, kernel settings writable: $w"; fi`,
].join('\n');

const TRIES: SandboxFeatures[] = [
  { userns: true, disableUserns: true },
  { userns: true, disableUserns: false },
  { userns: false, disableUserns: false },
];

/** Which failure explains most when every try failed (an old bwrap's "Unknown option" least). */
const TELLING: Record<ProbeReason, number> = { bwrap_failed: 0, userns_disabled: 1, bwrap_unconfined: 2, bwrap_missing: 3 };

type Attempt = { code: number | null; signal: NodeJS.Signals | null; out: string; err: string; spawnError?: NodeJS.ErrnoException };

function attempt(bwrap: string, features: SandboxFeatures, timeoutMs: number): Promise<Attempt> {
  const args = buildBwrapArgv({
    level: 'strict', profile: 'read', network: false, root: '/usr', cwd: '/', command: CHECK, features,
    emptyFile: '/dev/null', secretFiles: [], hiddenDirs: [], socketDirs: [], protect: [], gitWritable: [],
  }).slice(1);
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    const child = spawn(bwrap, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, env: { PATH: '/usr/bin:/bin' } });
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', (e: NodeJS.ErrnoException) => resolve({ code: null, signal: null, out, err, spawnError: e }));
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}

/**
 * Probes bwrap (by absolute path). The first way that works and confines decides the features;
 * when none does, the reason of the most telling failure: not installed, user namespaces
 * refused, running but not confining (capabilities kept, the host's /proc), or something else.
 * The containment check runs at the same time (a process of its own).
 */
export async function probeSandbox(bwrap = BWRAP, timeoutMs = 5000): Promise<ProbeResult> {
  const [finding, contain] = await Promise.all([findSandbox(bwrap, timeoutMs), probeContainment(bwrap, timeoutMs)]);
  return { ...finding, contain };
}

async function findSandbox(bwrap: string, timeoutMs: number): Promise<SandboxFinding> {
  let failure: Extract<SandboxFinding, { ok: false }> | undefined;
  for (const features of TRIES) {
    const a = await attempt(bwrap, features, timeoutMs);
    if (a.spawnError) {
      const missing = a.spawnError.code === 'ENOENT' || a.spawnError.code === 'EACCES';
      return { ok: false, reasonCode: missing ? 'bwrap_missing' : 'bwrap_failed', detail: `${bwrap}: ${a.spawnError.message}` };
    }
    if (a.code === 0 && a.out.trim() === OK) return { ok: true, features };
    const detail = a.code === 0 && a.out.trim() ? a.out.trim() : a.err.trim() || (a.signal ? `killed by ${a.signal}` : `exit code ${a.code}`);
    const reasonCode: ProbeReason =
      a.code === 0 && a.out.trim() ? 'bwrap_unconfined'
      : /namespace|uid map|setting up uid|Operation not permitted|Permission denied/i.test(a.err) ? 'userns_disabled'
      : 'bwrap_failed';
    if (!failure || TELLING[reasonCode] > TELLING[failure.reasonCode]) failure = { ok: false, reasonCode, detail };
  }
  return failure!;
}
