// The catalogue joined from its parts. The core part is en.ts + zh.ts; a feature with many strings
// keeps its own part, one file holding both languages side by side:
//   export const en = { 'area.key': '…' } as const;
//   export const zh: Record<keyof typeof en, string> = { 'area.key': '…' };
// and is added to both spreads below. Keys are prefixed by area, so parts never collide.

import { en as coreEn } from './en.js';
import { zh as coreZh } from './zh.js';
import { en as filesEn, zh as filesZh } from './files.js';
import { en as compatEn, zh as compatZh } from './compat.js';
import { en as toolsEn, zh as toolsZh } from './tools.js';
import { en as agentsEn, zh as agentsZh } from './agents.js';
import { en as codeindexEn, zh as codeindexZh } from './codeindex.js';
import { en as rewindEn, zh as rewindZh } from './rewind.js';
import { en as changesEn, zh as changesZh } from './changes.js';
import { en as dailyEn, zh as dailyZh } from './daily.js';
import { en as mcpEn, zh as mcpZh } from './mcp.js';
import { en as hostEn, zh as hostZh } from './host.js';

export const en = { ...coreEn, ...filesEn, ...compatEn, ...toolsEn, ...codeindexEn, ...dailyEn, ...rewindEn, ...changesEn, ...mcpEn, ...hostEn, ...agentsEn } as const;
export const zh: Record<MessageKey, string> = { ...coreZh, ...filesZh, ...compatZh, ...toolsZh, ...codeindexZh, ...dailyZh, ...rewindZh, ...changesZh, ...mcpZh, ...hostZh, ...agentsZh };

/** A key of the catalogue. */
export type MessageKey = keyof typeof en;
