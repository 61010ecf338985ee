// /agents: the specialists the task tool can hand work to — each with where its definition came
// from, the model it runs on, its caps and the tools it asks for — and where definition files go.

import { join } from 'node:path';
import { t, type MessageKey } from '../../i18n/index.js';
import { configDir } from '../../config/keys.js';
import { color } from '../render.js';
import { inert } from '../../util/text.js';
import type { Session } from './session-type.js';

const count = (n: number) => n.toLocaleString('en-US');

export function agentsCommand(_arg: string, s: Session): void {
  const { app, ui } = s;
  const dirs = [join(configDir(app.env), 'agents'), '.feiyu/agents', '.claude/agents'].join(', ');
  ui.line(t('agents.head', { dirs }));
  for (const def of app.specialists.agents) {
    const model = app.specialists.modelOf(def);
    const params = {
      name: ui.paint(color.bold, def.name),
      origin: t(`agents.origin_${def.origin}` as MessageKey) + (def.path ? ` (${inert(def.path)})` : ''),
      model: model === 'inherit' ? t('agents.model_inherit') : model,
      rounds: def.maxRounds,
      tokens: count(def.maxTokens),
      tools: def.tools ? def.tools.join(', ') : t('agents.all_tools'),
    };
    ui.line(`  ${t('agents.item', params)}`);
    ui.note(`    ${inert(def.description.split('\n')[0]!)}`);
  }
}
