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
  'ask.parse_error': 'the command could not be fully parsed ({part})',
  'ask.substitution': 'it runs a command substitution ({part})',
  'ask.expansion': 'it uses a shell expansion known only when it runs ({part})',
  'ask.dynamic_name': 'the program is only known when it runs ({part})',
  'ask.assignment': 'it sets a variable ({part})',
  'ask.construct': 'it uses a shell construct ({part})',
  'ask.background': 'it starts a background job (&)',
  'ask.redirect': 'it writes to a file ({part})',
  'ask.wrapper': 'it runs a command that cannot be checked ({part})',
  'ask.hidden_chars': 'it contains invisible or look-alike characters ({part})',
  'ask.too_long': 'it is too long to check',
  'ask.too_complex': 'it is too complex to check',
  'ask.not_allowlisted': '{program} is not on the read-only allowlist',
  'ask.unsafe_option': 'an option or argument could write files or run programs: {command}',
  'ask.path_outside': 'it reaches outside the workspace: {path}',
  'ask.unknown_arg': 'an argument is only known when it runs: {command}',
  'ask.program_path': '{program} is not the system\'s program',
  'ask.destructive': 'it can destroy work: {what}',
  'ask.write': '{tool} changes {path}',
  'ask.write_outside': '{tool} writes outside the workspace: {path}',
  'ask.exec': 'runs the tool {tool}',
  'ask.network': 'fetches from {host}',
  'ask.unchecked_deny_rule': 'a deny rule is set and part of this command cannot be checked ({part})',
  'decision.read': 'read tool',
  'decision.meta': 'meta tool',
  'decision.allowlist': 'read-only command on the allowlist',
  'decision.rule': 'allowed by a rule',
  'decision.auto_mode': 'auto mode',
  'decision.user_yes': 'approved',
  'decision.user_always': 'approved and remembered',
  'decision.user_auto': 'approved; switched to auto mode',
  'decision.secret': 'touches a secret (refused in every mode)',
  'decision.deny_rule': 'forbidden by a rule',
  'decision.plan_mode': 'refused in plan mode',
  'decision.readonly_mode': 'refused in read-only mode',
  'decision.headless': 'needs approval, and no one can be asked (headless)',
  'decision.user_no': 'declined',
  'decision.cancelled': 'cancelled',
  'decision.destructive': 'auto mode is running a command that can destroy work: {what}',
  'sandbox.bwrap_missing': 'bubblewrap (bwrap) is not installed; commands run without a sandbox',
  'sandbox.userns_disabled': 'user namespaces are disabled here, so bwrap cannot start; commands run without a sandbox',
  'sandbox.bwrap_failed': 'bwrap failed to start ({detail}); commands run without a sandbox',
  'sandbox.auto_unsandboxed': 'Warning: auto mode runs commands without a sandbox ({why}).',
  'sandbox.state': 'sandbox {level}',
  'sandbox.off_because': 'sandbox off: {why}',
  'trust.ask': 'This project wants to run its own commands:\n{what}\nTrust this project and let them run? [y/N] ',
  'trust.ignored': 'This project\'s hooks, verify: command and allow rules are ignored until you trust it (--trust, or answer y at the interactive prompt).',
  'trust.trusted': 'Project trusted.',
  'cost.title': 'Tasks in this directory, last {days} days:',
  'cost.none': 'No tasks in this directory in the last {days} days.',
  'cost.task': '{when}  {cost}  {rounds} rounds · {input} in · {output} out · {cached} cached  {request}',
  'cost.untitled': '(outside a request, e.g. /compact)',
  'cost.per_day': 'Per day:',
  'cost.day': '{day}  {cost}  {tasks} tasks',
  'cost.total': 'Total  {cost}  {tasks} tasks · {rounds} rounds · {input} in · {output} out · {cached} cached',
  'cost.unpriced': 'No price is known for {models}: "?" marks their cost. Set "price" for them in keys.json.',
  'session.session_newer': 'Session {id} was written by a newer feiyu (format {version}); this version reads format {supported}. Update feiyu to resume it.',
  'session.session_invalid': '{file} is not a feiyu session file.',
  'session.session_unreadable': 'Cannot read the session {file}: {detail}',
  'session.skipped': '{n} unreadable lines of the session were skipped (the process was probably killed mid-write).',
  'session.files_changed': '{n} files changed since this session was saved; the model will read them again before editing.',
  'session.write_failed': 'Cannot write the session file {file}: {msg}. This conversation is no longer being saved.',
  'resume.not_found': 'No session {id} found.',
  'resume.none': 'No earlier sessions in this directory.',
  'resume.item': '{n}. {when}  {rounds} rounds · {cost}  {request}',
  'resume.pick': 'Resume which session? Number, or Enter to cancel > ',
  'resume.resumed': 'Resumed session {id}: {messages} messages, {cost} so far.',
  'clear.confirm': 'Start a new conversation and delete this session\'s file? [y/N] ',
  'clear.done': 'New conversation.',
  'trace.write_failed': 'Cannot write the trace log: {msg}. Logging is off for the rest of this run.',
  'compact.elide': 'Context compacted: {elided} old tool results cut to stubs ({before} → {after} tokens).',
  'compact.summary': 'Context compacted: {removed} messages replaced by a summary ({before} → {after} tokens).',
  'compact.drop': 'Context compacted: the summary failed ({error}), so the {removed} oldest messages were dropped ({before} → {after} tokens).',
  'compact.cancelled': 'Compaction cancelled; only {elided} old tool results were cut ({before} → {after} tokens).',
  'compact.nothing': 'Nothing to compact.',
  'usage.side': 'side requests (sub-agents, web questions): {tokens} tokens · {cost}',
  'fail.exit': 'exited with code {code}',
  'fail.signal': 'killed by {signal}',
  'fail.timeout': 'timed out after {secs} s and was stopped',
  'fail.spawn': 'could not start: {message}',
  'hook.failed': 'The {event} hook "{command}" failed: {why}',
  'hook.failed_blocked': 'The {event} hook "{command}" failed: {why}. The tool call was refused.',
  'hook.prompt_blocked': 'A UserPromptSubmit hook blocked this message: {reason}',
  'hook.sent_back': 'A Stop hook sent the model back to work: {reason}',
  'verify.passed': 'verify passed: {command} ({secs} s)',
  'verify.failed': 'verify failed: {command}, {why} ({secs} s); the output went to the model',
  'todo.reminded': 'The todo list has {n} open items; the model was asked to finish them.',
  'memory.dropped': '{n} older notes did not fit in the prompt ({cap} characters) and were left out this session.',
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
  'ask.parse_error': '命令无法完整解析（{part}）',
  'ask.substitution': '其中包含命令替换（{part}）',
  'ask.expansion': '其中包含运行时才能确定的展开（{part}）',
  'ask.dynamic_name': '要运行的程序要到运行时才能确定（{part}）',
  'ask.assignment': '其中设置了变量（{part}）',
  'ask.construct': '其中使用了 shell 结构（{part}）',
  'ask.background': '会启动后台任务（&）',
  'ask.redirect': '会写入文件（{part}）',
  'ask.wrapper': '会运行无法检查的命令（{part}）',
  'ask.hidden_chars': '含有不可见或形似的字符（{part}）',
  'ask.too_long': '命令太长，无法检查',
  'ask.too_complex': '命令太复杂，无法检查',
  'ask.not_allowlisted': '{program} 不在只读白名单中',
  'ask.unsafe_option': '某个选项或参数可能写文件或运行程序：{command}',
  'ask.path_outside': '会访问工作区之外：{path}',
  'ask.unknown_arg': '有参数要到运行时才能确定：{command}',
  'ask.program_path': '{program} 不是系统自带的程序',
  'ask.destructive': '可能毁掉已有工作：{what}',
  'ask.write': '{tool} 将修改 {path}',
  'ask.write_outside': '{tool} 将写入工作区之外：{path}',
  'ask.exec': '将运行工具 {tool}',
  'ask.network': '将访问 {host}',
  'ask.unchecked_deny_rule': '已设置禁止规则，但命令中有部分无法检查（{part}）',
  'decision.read': '读取工具',
  'decision.meta': '辅助工具',
  'decision.allowlist': '白名单中的只读命令',
  'decision.rule': '由规则允许',
  'decision.auto_mode': '自动模式',
  'decision.user_yes': '已批准',
  'decision.user_always': '已批准并记住',
  'decision.user_auto': '已批准并切换到自动模式',
  'decision.secret': '涉及机密（任何模式都拒绝）',
  'decision.deny_rule': '被规则禁止',
  'decision.plan_mode': '计划模式下拒绝',
  'decision.readonly_mode': '只读模式下拒绝',
  'decision.headless': '需要批准，但无人可问（无界面模式）',
  'decision.user_no': '已拒绝',
  'decision.cancelled': '已取消',
  'decision.destructive': '自动模式正在运行可能毁掉已有工作的命令：{what}',
  'sandbox.bwrap_missing': '未安装 bubblewrap（bwrap），命令将不经沙箱运行',
  'sandbox.userns_disabled': '此环境禁用了用户命名空间，bwrap 无法启动，命令将不经沙箱运行',
  'sandbox.bwrap_failed': 'bwrap 启动失败（{detail}），命令将不经沙箱运行',
  'sandbox.auto_unsandboxed': '警告：自动模式下命令在沙箱之外运行（{why}）。',
  'sandbox.state': '沙箱 {level}',
  'sandbox.off_because': '沙箱关闭：{why}',
  'trust.ask': '本项目想运行它自己的命令：\n{what}\n信任本项目并允许这些命令运行吗？[y/N] ',
  'trust.ignored': '在你信任本项目之前，它的 hooks、verify: 命令和允许规则都会被忽略（使用 --trust，或在交互提示中回答 y）。',
  'trust.trusted': '已信任本项目。',
  'cost.title': '本目录最近 {days} 天的任务：',
  'cost.none': '最近 {days} 天本目录没有任务。',
  'cost.task': '{when}  {cost}  {rounds} 轮 · 输入 {input} · 输出 {output} · 缓存 {cached}  {request}',
  'cost.untitled': '（不属于任何请求，如 /compact）',
  'cost.per_day': '按天：',
  'cost.day': '{day}  {cost}  {tasks} 个任务',
  'cost.total': '合计  {cost}  {tasks} 个任务 · {rounds} 轮 · 输入 {input} · 输出 {output} · 缓存 {cached}',
  'cost.unpriced': '{models} 没有已知价格，费用显示为“?”。请在 keys.json 中为其设置 "price"。',
  'session.session_newer': '会话 {id} 由更新版本的 feiyu 写入（格式 {version}），本版本只能读取格式 {supported}。请更新 feiyu 后再恢复。',
  'session.session_invalid': '{file} 不是 feiyu 会话文件。',
  'session.session_unreadable': '无法读取会话 {file}：{detail}',
  'session.skipped': '已跳过会话中 {n} 行无法读取的内容（进程可能在写入时被终止）。',
  'session.files_changed': '自会话保存以来有 {n} 个文件已改变，模型会在编辑前重新读取。',
  'session.write_failed': '无法写入会话文件 {file}：{msg}。此后的对话不会被保存。',
  'resume.not_found': '找不到会话 {id}。',
  'resume.none': '当前目录没有以前的会话。',
  'resume.item': '{n}. {when}  {rounds} 轮 · {cost}  {request}',
  'resume.pick': '恢复哪个会话？输入编号，回车取消 > ',
  'resume.resumed': '已恢复会话 {id}：{messages} 条消息，累计 {cost}。',
  'clear.confirm': '开始新对话并删除当前会话文件？[y/N] ',
  'clear.done': '已开始新对话。',
  'trace.write_failed': '无法写入跟踪日志：{msg}。本次运行余下部分不再记录日志。',
  'compact.elide': '上下文已压缩：{elided} 个旧工具结果已替换为占位标记（{before} → {after} tokens）。',
  'compact.summary': '上下文已压缩：{removed} 条消息已替换为摘要（{before} → {after} tokens）。',
  'compact.drop': '上下文已压缩：摘要失败（{error}），已丢弃最早的 {removed} 条消息（{before} → {after} tokens）。',
  'compact.cancelled': '压缩已取消；仅替换了 {elided} 个旧工具结果（{before} → {after} tokens）。',
  'compact.nothing': '没有可压缩的内容。',
  'usage.side': '旁路请求（子代理、网页提问）：{tokens} tokens · {cost}',
  'fail.exit': '退出码 {code}',
  'fail.signal': '被信号 {signal} 终止',
  'fail.timeout': '超过 {secs} 秒未结束，已终止',
  'fail.spawn': '无法启动：{message}',
  'hook.failed': '{event} 钩子“{command}”失败：{why}',
  'hook.failed_blocked': '{event} 钩子“{command}”失败：{why}。该工具调用已被拒绝。',
  'hook.prompt_blocked': 'UserPromptSubmit 钩子拦下了这条消息：{reason}',
  'hook.sent_back': 'Stop 钩子让模型继续工作：{reason}',
  'verify.passed': 'verify 通过：{command}（{secs} 秒）',
  'verify.failed': 'verify 失败：{command}，{why}（{secs} 秒）；输出已交给模型',
  'todo.reminded': '待办清单还有 {n} 项未完成，已提醒模型继续。',
  'memory.dropped': '有 {n} 条较早的记忆超出提示词上限（{cap} 字符），本次会话未载入。',
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
