// Reading one configuration file's text (settings.json, .mcp.json, a --mcp-config file): a regular
// file of a sane size, or a Problem naming it. Must not parse or validate (the callers do).

import { CONFIG_FILE_MAX, FileReadError, readRegularFile } from '../util/readfile.js';
import { Problem } from '../i18n/index.js';

/** The file's text; undefined when it does not exist. Throws FileReadError (not regular, huge) or a Problem. */
export function readConfigText(file: string): string | undefined {
  try {
    return readRegularFile(file, CONFIG_FILE_MAX);
  } catch (err) {
    if (err instanceof FileReadError) throw err;
    throw new Problem('settings.unreadable', { file, detail: (err as Error).message });
  }
}
