// Places for the tests of the project's Markdown (skills, commands): a fresh workspace and home
// per call, under one temporary folder removed when the file's tests end, filled with `files`
// (paths relative to the folder holding ws/ and home/).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import type { ConventionPlaces } from '../src/config/conventions.js';

export function usePlaces(prefix: string): (files: Record<string, string>) => ConventionPlaces {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-`)));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  let n = 0;
  return (files) => {
    const dir = join(base, String(++n));
    const places = { workspace: join(dir, 'ws'), home: join(dir, 'home'), configDir: join(dir, 'home', '.config', 'feiyu') };
    mkdirSync(places.workspace, { recursive: true });
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return places;
  };
}
