// The one catalogue of user-facing strings, in English and Simplified Chinese, and the choice of
// language. Strings meant for the model (tool results, refusals) are not here: they stay English.
// Contract: every key exists in both languages (the compiler and a test check it).

export type Lang = 'en' | 'zh';

const en = {
  'cli.usage': `Usage: feiyu [options] [message]

  feiyu                       interactive session in the current directory
  feiyu "do X"                interactive session, starting with that message
  feiyu -p "do X"             headless: run to completion, print the result, exit

Options:
  -p, --print                 headless mode (the message is the argument, or stdin)
  --output-format FORMAT      text | json | stream-json (headless; default text)
  --mode MODE                 default | auto | plan | readonly
  --sandbox LEVEL             off | workspace | strict
  --model NAME                a model name from keys.json
  --resume [ID]               continue the last session here, or that one
  --max-rounds N              tool rounds per message (default 25)
  --lang en|zh                interface language
  -C, --cwd DIR               the workspace (default: the current directory)
  --trust                     trust this project's hooks and verify: without asking
  --output-schema FILE        headless: the final answer is JSON valid against this schema
  -h, --help                  this help
  -v, --version               the version`,
  'cli.bad_usage': '{msg}\nRun feiyu --help for the options.',
  'usage.one_of': '{flag} must be one of {allowed} (got "{value}").',
  'usage.needs_value': '{flag} needs a value.',
  'usage.max_rounds': '--max-rounds must be a whole number of at least 1 (got "{value}").',
  'usage.unknown': 'Unknown option {flag}.',
  'cli.config_error': 'Configuration error: {msg}',
  'cli.no_model':
    'No model is configured. Set ANTHROPIC_API_KEY (or OPENAI_API_KEY with OPENAI_BASE_URL for an OpenAI-compatible server), or add a model to {file}.',
  'cli.no_prompt': 'Headless mode needs a message: feiyu -p "what to do" (or pipe it on stdin).',
  'cli.schema_unreadable': 'Cannot read the output schema {file}: {msg}',
  'cfg.keys_json': '{file} is not valid JSON: {detail}',
  'cfg.keys_field': '{file}: {field} must be {expected}',
  'cfg.keys_duplicate': '{file}: two models are named "{name}"',
  'cfg.keys_default': '{file}: the default "{name}" is not one of the models ({names})',
  'cfg.model_unknown': 'No model named "{name}"; configured: {names}',
  'cfg.no_models': 'No model is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or add a model to keys.json.',
  'cli.not_implemented': '{flag} is not available in this version yet.',

  'err.auth': 'The model "{model}" rejected the API key (HTTP {status}). Check {keySource}, then try again.',
  'err.forbidden': 'The model "{model}" refused access (HTTP {status}): {msg}. The key in {keySource} may lack permission for {id}.',
  'err.not_found': 'The server has no model "{id}" (HTTP {status}) at {url}. Check the model id in keys.json, or the base URL.',
  'err.bad_request': 'The server rejected the request for "{model}" (HTTP {status}): {msg}',
  'err.rate_limit': 'Still rate limited by the server for "{model}" after retrying: {msg}. Wait a minute and send again.',
  'err.overloaded': 'The server for "{model}" is overloaded and stayed so after retrying: {msg}. Try again later.',
  'err.server': 'The server for "{model}" failed (HTTP {status}) after retrying: {msg}',
  'err.connection': 'Cannot reach the server for "{model}" at {url}: {msg}. Check the network and the base URL.',
  'err.other': 'The request to "{model}" failed: {msg}',
  'key.env': 'the environment variable {name}',
  'key.file': 'the apiKey of "{name}" in keys.json',
  'key.none': 'keys.json (no API key is set for "{name}")',

  'retry.rate_limit': 'rate limited',
  'retry.overloaded': 'server overloaded',
  'retry.server': 'server error',
  'retry.connection': 'connection failed',
  'retry.other': 'request failed',
  'retry.line': '{reason}, retrying in {secs} s ({n}/{max})',

  'notice.max_rounds': 'Stopped after {n} tool rounds, the limit for one message (--max-rounds). Send any message to continue.',
  'notice.max_tokens': 'The answer was cut off at the output token limit.',
  'notice.usage_estimated': 'The server reported no token usage; the figures are estimates.',
  'notice.schema_retry': 'The answer did not match the output schema; asking the model once more.',
  'notice.schema_failed': 'The answer still does not match the output schema.',

  'sum.lines': '{n} lines',
  'sum.wrote': 'wrote {n} lines',
  'sum.edited': '{n} replaced',
  'sum.files': '{n} files',
  'sum.matches': '{n} matches',
  'sum.exit': 'exit {code} · {secs} s',
  'sum.timeout': 'timed out after {secs} s',
  'sum.ok': 'done',
  'tool.denied': 'refused: {reason}',

  'repl.welcome': 'feiyu {version} · model {model} · mode {mode}\nworkspace {root}',
  'repl.conventions': 'conventions from {file}',
  'repl.hints': 'Enter sends · Ctrl+C cancels a turn · Ctrl+D or /exit quits · /help',
  'repl.cancelled': 'Cancelled.',
  'repl.ctrlc_again': 'Press Ctrl+C again (or Ctrl+D) to exit.',
  'repl.unknown_command': 'Unknown command {cmd}. /help lists the commands.',
  'repl.bye': 'Bye.',
  'repl.status': '{input} in · {output} out · {cached} cached · {cost} this turn · {total} in all',
  'repl.ask': 'Allow {tool}: {what}\n  ({why})  [y] yes once · [n] no · [s] always in this project · [a] auto mode > ',
  'repl.ask_reason': 'reason for the model (optional) > ',

  'cmd.help': 'show the commands',
  'cmd.exit': 'leave feiyu',
  'cmd.quit': 'leave feiyu',
} as const;

export type MessageKey = keyof typeof en;

const zh: Record<MessageKey, string> = {
  'cli.usage': `用法：feiyu [选项] [消息]

  feiyu                       在当前目录开始交互式会话
  feiyu "做某事"              开始交互式会话，并先发送这条消息
  feiyu -p "做某事"           无界面模式：运行到完成，打印结果后退出

选项：
  -p, --print                 无界面模式（消息取自参数或标准输入）
  --output-format 格式        text | json | stream-json（无界面模式；默认 text）
  --mode 模式                 default | auto | plan | readonly
  --sandbox 级别              off | workspace | strict
  --model 名称                keys.json 中的模型名称
  --resume [ID]               继续本目录上一次的会话，或指定的会话
  --max-rounds N              每条消息的工具轮数上限（默认 25）
  --lang en|zh                界面语言
  -C, --cwd 目录              工作区（默认：当前目录）
  --trust                     信任本项目的 hooks 和 verify:，不再询问
  --output-schema 文件        无界面模式：最终回答是符合该 JSON Schema 的 JSON
  -h, --help                  显示本帮助
  -v, --version               显示版本`,
  'cli.bad_usage': '{msg}\n运行 feiyu --help 查看选项。',
  'usage.one_of': '{flag} 必须是 {allowed} 之一（收到“{value}”）。',
  'usage.needs_value': '{flag} 需要一个值。',
  'usage.max_rounds': '--max-rounds 必须是不小于 1 的整数（收到“{value}”）。',
  'usage.unknown': '未知选项 {flag}。',
  'cli.config_error': '配置错误：{msg}',
  'cli.no_model':
    '尚未配置模型。请设置 ANTHROPIC_API_KEY（或为 OpenAI 兼容服务设置 OPENAI_API_KEY 和 OPENAI_BASE_URL），或在 {file} 中添加模型。',
  'cli.no_prompt': '无界面模式需要一条消息：feiyu -p "要做的事"（或通过标准输入传入）。',
  'cli.schema_unreadable': '无法读取输出 schema 文件 {file}：{msg}',
  'cfg.keys_json': '{file} 不是有效的 JSON：{detail}',
  'cfg.keys_field': '{file}：{field} 应为 {expected}',
  'cfg.keys_duplicate': '{file}：有两个模型都叫“{name}”',
  'cfg.keys_default': '{file}：默认模型“{name}”不在已配置的模型中（{names}）',
  'cfg.model_unknown': '没有名为“{name}”的模型；已配置：{names}',
  'cfg.no_models': '尚未配置模型：请设置 ANTHROPIC_API_KEY 或 OPENAI_API_KEY，或在 keys.json 中添加模型。',
  'cli.not_implemented': '此版本暂不支持 {flag}。',

  'err.auth': '模型“{model}”拒绝了 API 密钥（HTTP {status}）。请检查{keySource}后重试。',
  'err.forbidden': '模型“{model}”拒绝访问（HTTP {status}）：{msg}。{keySource}中的密钥可能没有使用 {id} 的权限。',
  'err.not_found': '服务器 {url} 上没有模型“{id}”（HTTP {status}）。请检查 keys.json 中的模型 ID 或 base URL。',
  'err.bad_request': '服务器拒绝了发给“{model}”的请求（HTTP {status}）：{msg}',
  'err.rate_limit': '重试之后，“{model}”的服务器仍在限流：{msg}。请等一分钟再发送。',
  'err.overloaded': '“{model}”的服务器过载，重试后仍未恢复：{msg}。请稍后再试。',
  'err.server': '“{model}”的服务器出错（HTTP {status}），重试后仍失败：{msg}',
  'err.connection': '无法连接“{model}”的服务器 {url}：{msg}。请检查网络和 base URL。',
  'err.other': '发给“{model}”的请求失败：{msg}',
  'key.env': '环境变量 {name}',
  'key.file': 'keys.json 中“{name}”的 apiKey',
  'key.none': 'keys.json（“{name}”没有设置 API 密钥）',

  'retry.rate_limit': '被限流',
  'retry.overloaded': '服务器过载',
  'retry.server': '服务器错误',
  'retry.connection': '连接失败',
  'retry.other': '请求失败',
  'retry.line': '{reason}，{secs} 秒后重试（{n}/{max}）',

  'notice.max_rounds': '已连续执行 {n} 轮工具调用，达到单条消息的上限（--max-rounds），已停止。发送任意消息即可继续。',
  'notice.max_tokens': '回答因达到输出 token 上限而被截断。',
  'notice.usage_estimated': '服务器未报告 token 用量，以下数字为估算值。',
  'notice.schema_retry': '回答不符合输出 schema，再请模型修正一次。',
  'notice.schema_failed': '回答仍不符合输出 schema。',

  'sum.lines': '{n} 行',
  'sum.wrote': '写入 {n} 行',
  'sum.edited': '替换 {n} 处',
  'sum.files': '{n} 个文件',
  'sum.matches': '{n} 处匹配',
  'sum.exit': '退出码 {code} · {secs} 秒',
  'sum.timeout': '{secs} 秒后超时',
  'sum.ok': '完成',
  'tool.denied': '已拒绝：{reason}',

  'repl.welcome': 'feiyu {version} · 模型 {model} · 模式 {mode}\n工作区 {root}',
  'repl.conventions': '已加载项目约定 {file}',
  'repl.hints': '回车发送 · Ctrl+C 取消当前轮 · Ctrl+D 或 /exit 退出 · /help',
  'repl.cancelled': '已取消。',
  'repl.ctrlc_again': '再按一次 Ctrl+C（或 Ctrl+D）退出。',
  'repl.unknown_command': '未知命令 {cmd}。输入 /help 查看命令列表。',
  'repl.bye': '再见。',
  'repl.status': '输入 {input} · 输出 {output} · 缓存 {cached} · 本轮 {cost} · 累计 {total}',
  'repl.ask': '允许 {tool}：{what}\n  （{why}）  [y] 仅此一次 · [n] 拒绝 · [s] 本项目总是允许 · [a] 切换到自动模式 > ',
  'repl.ask_reason': '给模型的理由（可留空）> ',

  'cmd.help': '显示命令列表',
  'cmd.exit': '退出 feiyu',
  'cmd.quit': '退出 feiyu',
};

const catalogue: Record<Lang, Record<MessageKey, string>> = { en, zh };

let current: Lang = 'en';

export function setLang(lang: Lang): void {
  current = lang;
}

export function getLang(): Lang {
  return current;
}

/** The string for `key` in the current language, with `{name}` placeholders filled. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  return catalogue[current][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

/** Every key of the catalogue, per language (for the completeness test). */
export function catalogueKeys(): Record<Lang, string[]> {
  return { en: Object.keys(en), zh: Object.keys(zh) };
}

/**
 * The interface language: --lang, else settings, else FEIYU_LANG, else the locale variables
 * (zh* means Chinese), else English.
 */
export function detectLang(flag: string | undefined, setting: string | undefined, env: NodeJS.ProcessEnv): Lang {
  for (const v of [flag, setting, env.FEIYU_LANG]) {
    if (v === 'en' || v === 'zh') return v;
  }
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return locale.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}
