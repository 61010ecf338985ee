// --input-format stream-json: the user's messages as Claude Code's JSON lines on stdin,
// {"type":"user","message":{"role":"user","content":"…" or [{"type":"text","text":"…"}]}}, read one
// at a time as they arrive. Other lines are passed over with a word on stderr. Runs nothing.

import { t } from '../i18n/index.js';
import { isObject } from '../util/jsonfile.js';

/** The text of each user message among `lines`; `warn` hears of lines and blocks passed over. */
export async function* streamJsonMessages(lines: AsyncIterable<string>, warn: (text: string) => void): AsyncIterable<string> {
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!line.trim()) continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch (err) {
      warn(t('compat.input_line', { n, detail: (err as Error).message }));
      continue;
    }
    const message = isObject(data) && data.type === 'user' && isObject(data.message) ? data.message : undefined;
    const content = message?.content;
    if (typeof content === 'string') {
      yield content;
      continue;
    }
    if (!Array.isArray(content)) {
      warn(t('compat.input_line', { n, detail: isObject(data) ? `type ${JSON.stringify(data.type)}` : 'not an object' }));
      continue;
    }
    const texts = content.filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
    const others = [...new Set(content.filter((b) => !(isObject(b) && b.type === 'text')).map((b) => (isObject(b) ? String(b.type) : typeof b)))];
    if (others.length) warn(t('compat.input_blocks', { n, kinds: others.join(', ') }));
    if (texts.length) yield texts.join('\n');
  }
}
