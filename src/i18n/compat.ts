// The catalogue part of Claude Code compatibility: its command-line flags, hooks' messages and
// the stream-json input, in English and Chinese side by side (catalogue.ts joins the parts).

export const en = {
  'compat.usage': `Claude Code's flags (claude -p), where feiyu has the feature:
  --output-format events      feiyu's own events, one JSON object a line (stream-json is Claude's stream)
  --input-format stream-json  the messages as JSON lines on stdin (with --output-format stream-json)
  --include-partial-messages  stream-json: the model's reply as it streams (stream_event lines)
  --max-turns N               the same as --max-rounds
  -c, --continue              continue the last session here (-r, --resume ID: that one)
  --permission-mode MODE      default | acceptEdits | plan | bypassPermissions (bypassPermissions is --mode auto)
  --dangerously-skip-permissions   the same as --mode auto (destructive commands still ask)
  --allowedTools RULES        allow rules for this run: Bash(npm test:*) Edit Read(./src/**) …
  --disallowedTools RULES     deny rules for this run, in the same syntax
  --system-prompt TEXT        replaces feiyu's base instructions
  --append-system-prompt TEXT added at the end of the system prompt
  --verbose                   accepted (the stream is complete without it)`,
  'compat.stream_input': '--input-format stream-json needs --output-format stream-json.',
  'compat.input_line': 'stdin line {n} is not a stream-json user message ({detail}); it is ignored.',
  'compat.input_blocks': 'stdin line {n}: only the text of a message is read; {kinds} blocks are ignored.',
  'compat.hook_message': '{event} hook: {message}',
  'compat.hook_stopped': 'A {event} hook stopped the turn: {reason}',
  'compat.hook_event_unknown': '{file}: hooks.{event} is not a hook event feiyu knows, so those hooks do not run.',
  'compat.hook_type_unsupported': '{file}: hooks.{event} has a hook of type "{type}"; feiyu runs only "command" hooks, so it does not run.',
} as const;

export const zh: Record<keyof typeof en, string> = {
  'compat.usage': `Claude Code 的参数（claude -p），在飞鱼有对应功能时可用：
  --output-format events      飞鱼自己的事件，每行一个 JSON 对象（stream-json 是 Claude 的消息流）
  --input-format stream-json  从标准输入按行读取 JSON 消息（需配合 --output-format stream-json）
  --include-partial-messages  stream-json：模型回复流式输出（stream_event 行）
  --max-turns N               等同 --max-rounds
  -c, --continue              继续本目录最近的会话（-r, --resume ID：继续指定会话）
  --permission-mode MODE      default | acceptEdits | plan | bypassPermissions（bypassPermissions 即 --mode auto）
  --dangerously-skip-permissions   等同 --mode auto（破坏性命令仍会询问）
  --allowedTools RULES        本次运行的允许规则：Bash(npm test:*) Edit Read(./src/**) …
  --disallowedTools RULES     本次运行的禁止规则，语法相同
  --system-prompt TEXT        替换飞鱼的基础指令
  --append-system-prompt TEXT 追加到系统提示词末尾
  --verbose                   接受该参数（不加它输出也是完整的）`,
  'compat.stream_input': '--input-format stream-json 需要配合 --output-format stream-json。',
  'compat.input_line': '标准输入第 {n} 行不是 stream-json 用户消息（{detail}），已忽略。',
  'compat.input_blocks': '标准输入第 {n} 行：只读取消息中的文本，{kinds} 块已忽略。',
  'compat.hook_message': '{event} 钩子：{message}',
  'compat.hook_stopped': '{event} 钩子结束了本轮：{reason}',
  'compat.hook_event_unknown': '{file}：hooks.{event} 不是飞鱼认识的钩子事件，这些钩子不会运行。',
  'compat.hook_type_unsupported': '{file}：hooks.{event} 中有类型为“{type}”的钩子；飞鱼只运行 "command" 钩子，它不会运行。',
};
