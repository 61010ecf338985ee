// The optional code index, seen from the app: whether the settings and the workspace turn it on,
// loading the module only then (off, or auto outside a git repository: not even imported), its
// tools joining the agent, the edits of feiyu's own tools fed to it, its progress and notices
// relayed. Must not import the module except lazily, and must not print.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CodeIndexHandle, CodeIndexStatus, IndexNotice, Progress } from '../codeindex/index.js';

export type { CodeIndexStatus, Progress };
import type { AgentEvent, NoticeCode, NoticeEvent } from '../types/events.js';
import type { Tool } from '../types/tools.js';

export type CodeIndexSetting = 'auto' | 'on' | 'off';

/** Why the index is not running, for /index. */
export type CodeIndexOff = 'setting' | 'not_git' | 'too_few_files' | 'failed_to_load';

export type CodeIndexLink = {
  /**
   * Loads the module and starts indexing, once (later calls do nothing): the REPL calls it when
   * its prompt is up, so start-up is not slowed; sending a message and /index call it too.
   */
  start(): void;
  /** Resolves once the index knows whether it is on (after start()); by then its tools are offered. Never rejects. */
  settled: Promise<void>;
  /** Null while loading or when off (see `off`). */
  status(): CodeIndexStatus | null;
  /** Counts the call edges for status() without holding up the process (about a second at 20 MB). */
  countEdges(): Promise<void>;
  off(): CodeIndexOff | null;
  rebuild(): Promise<void>;
  /** Progress while building: done and total files. */
  onProgress(listener: (p: Progress) => void): void;
  close(): Promise<void>;
};

type LinkOptions = {
  setting: CodeIndexSetting;
  root: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** Offers tools to the model (and to sub-agents) from the next request on. */
  addTools: (tools: Tool[]) => void;
  /** Subscribes to the agent's events (edits made through feiyu's tools). */
  onEvent: (listener: (event: AgentEvent) => void) => void;
  notify: (code: NoticeCode, params?: NoticeEvent['params']) => void;
  /** Say when a long build is done (interactive sessions; a headless run only hears of problems). */
  announce: boolean;
};

/** True when `dir` or a folder above it holds a .git (a repository or a worktree). */
export function inGitRepository(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return true;
    if (dirname(d) === d) return false;
  }
}

const NOTICES: Record<IndexNotice['code'], NoticeCode | null> = {
  cache_corrupt: 'codeindex_cache_corrupt',
  build_failed: 'codeindex_build_failed',
  save_failed: 'codeindex_save_failed',
  // Auto mode deciding a small project needs no index is no news; /index says why it is off.
  too_few_files: null,
};

/** Starts the code index in the background when the settings and the workspace call for it; null when off. */
export function linkCodeIndex(o: LinkOptions): CodeIndexLink | null {
  if (o.setting === 'off') return null;
  if (o.setting === 'auto' && !inGitRepository(o.root)) return null;
  const listeners = new Set<(p: Progress) => void>();
  let handle: CodeIndexHandle | null = null;
  let off: CodeIndexOff | null = null;
  let startedAt = 0;
  let offered = false;
  const offer = () => {
    if (offered || !handle) return;
    offered = true;
    o.addTools(handle.tools);
    o.onEvent((event) => {
      if (event.type === 'tool_result' && event.change) void handle?.update([event.change.path]);
    });
  };
  const onNotice = (n: IndexNotice) => {
    if (n.code === 'too_few_files') off = 'too_few_files';
    const code = NOTICES[n.code];
    if (code) o.notify(code, { detail: n.detail ?? '' });
  };
  const onProgress = (p: Progress) => {
    listeners.forEach((l) => l(p));
    if (p.state !== 'ready' || !handle || !startedAt) return;
    const secs = (Date.now() - startedAt) / 1000;
    startedAt = 0;
    // Only a build worth waiting for is announced; a warm start from the cache is quiet.
    if (!(o.announce && p.total > 0 && secs >= 1)) return;
    const s = handle.counts();
    o.notify('codeindex_ready', { files: s.files, symbols: s.symbols, secs: secs.toFixed(1) });
  };
  let begun = false;
  let closed = false;
  let release!: () => void;
  const started = new Promise<void>((resolve) => (release = resolve));
  const begin = () => {
    if (closed || begun) return;
    begun = true;
    release();
  };
  const settled = (async () => {
    await started;
    try {
      const { openCodeIndex } = await import('../codeindex/index.js');
      if (closed) return;
      startedAt = Date.now();
      handle = openCodeIndex({ root: o.root, stateDir: o.stateDir, env: o.env, mode: o.setting === 'on' ? 'on' : 'auto', onProgress, onNotice });
      if ((await handle.enabled) && !closed) offer();
    } catch (err) {
      off = 'failed_to_load';
      o.notify('codeindex_build_failed', { detail: (err as Error).message });
    }
  })();
  return {
    start: () => begin(),
    settled,
    status: () => (handle && !off ? handle.status() : null),
    countEdges: () => (handle && !off ? handle.countEdges() : Promise.resolve()),
    off: () => off,
    async rebuild() {
      begin();
      await settled;
      if (!handle) return;
      off = null;
      startedAt = Date.now();
      const rebuilt = handle.rebuild();
      // Asked for by name, the index is on from now, even where auto mode had left it off.
      offer();
      await rebuilt;
    },
    onProgress: (listener) => void listeners.add(listener),
    async close() {
      // Never started: nothing to wait for, and nothing to load just to close it.
      closed = true;
      if (!begun) return;
      // A build under way is stopped first: waiting for it would hold feiyu's exit as long as it takes.
      const closing = handle?.close();
      await settled;
      await (closing ?? handle?.close());
    },
  };
}
