// The sandbox launchers of a session: one per level, made when first used, each keeping its
// secret listing's cache and counting the placeholders its commands hold. Starts nothing itself.

import { createLauncher } from '../safety/sandboxhost.js';
import type { AppConfig } from './config.js';
import type { SandboxLevel } from '../types/permissions.js';
import type { WrapCommand } from '../types/tools.js';

/** A launcher that starts each command under the level `level()` says when it runs (/sandbox changes it between calls). */
export function sessionLauncher(config: AppConfig, level: () => SandboxLevel): WrapCommand {
  const launchers = new Map<SandboxLevel, WrapCommand>();
  const launcher = (at: SandboxLevel): WrapCommand => {
    let made = launchers.get(at);
    if (!made) {
      const { root, stateDir, home, configDir, sandboxFeatures: features, sandboxNetwork: network, sandboxContain: contain } = config;
      made = createLauncher({ level: at, root, home, configDir, stateDir, runtimeDir: config.env.XDG_RUNTIME_DIR, network, features, contain });
      launchers.set(at, made);
    }
    return made;
  };
  return (req) => launcher(level())(req);
}
