// The core tool table, in the order the model sees it: look first, then change, then run.
// Owns only the order; each tool lives in its own module. What a session's tools share comes in
// the context (read records, the shell, jobs); the one module state is web.ts's page cache.

import { bash } from './bash.js';
import { listFiles, search } from './find.js';
import { editFileTool, readFileTool, writeFileTool } from './fs.js';
import type { Tool } from '../types/tools.js';

/** Contract: names and order are stable (read_file, list_files, search, write_file, edit_file, bash), so the prompt cache holds. */
export function coreTools(): Tool[] {
  return [readFileTool, listFiles, search, writeFileTool, editFileTool, bash];
}
