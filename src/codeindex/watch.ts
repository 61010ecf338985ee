// Notices files changing under the indexed folders (one inotify watch per folder, not recursive,
// never keeping the process alive), so a query checks only what changed instead of statting every
// file. Reports paths, decides nothing; when a watch cannot be set up it says so and the index
// falls back to checking every file.

import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private changed = new Set<string>();
  /** Folders that reported an event without a file name: everything in them is suspect. */
  private vague = new Set<string>();
  /** False once any watch failed: the caller must check every file itself. */
  healthy = true;

  constructor(
    private readonly root: string,
    folders: string[],
  ) {
    this.follow(folders);
  }

  /** Watches exactly `folders` (root-relative, '' for the root). */
  follow(folders: string[]): void {
    const wanted = new Set(folders);
    for (const [dir, w] of this.watchers) {
      if (wanted.has(dir)) continue;
      w.close();
      this.watchers.delete(dir);
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir) || !this.healthy) continue;
      try {
        const w = watch(join(this.root, dir), { persistent: false }, (_event, name) => {
          if (name) this.changed.add(dir ? `${dir}/${name}` : String(name));
          else this.vague.add(dir);
        });
        // A folder removed under a watch, or inotify running out of watches.
        w.on('error', () => {
          this.healthy = false;
          this.vague.add(dir);
        });
        this.watchers.set(dir, w);
      } catch {
        this.healthy = false;
      }
    }
  }

  /** What changed since the last call: paths named by events, and folders that changed without a name. */
  take(): { paths: string[]; folders: string[] } {
    const taken = { paths: [...this.changed], folders: [...this.vague] };
    this.changed = new Set();
    this.vague = new Set();
    return taken;
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
