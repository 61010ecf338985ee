// The catalogue part of the daily-driver features (issue 14): live output, the keys and commands
// users bring from other agents, and the first-day fixes. Both languages side by side.

export const en = {
  'stdin.cut': 'stdin held {bytes} bytes: its middle was cut, and its first and last {kept} characters in all were sent as context.',
  'spin.checking': 'checking {tool}',
  'spin.asking': 'waiting for you',
  'time.days': '{n} d',
  'resume.said': 'Resumed session {id} from {ago} ago: "{request}", {rounds} tool rounds.',
  'resume.mode': 'The session continues in its saved mode, {mode}.',
  'mode.auto_warning': 'Auto mode: commands run and files change without asking; only what destroys work or changes protected files asks. Shift+Tab or /mode default changes it.',
  'root.broad': 'feiyu is working in {root}, not in a project folder: everything below it is the workspace. In auto mode the first change asks you first.',
  'ask.broad_root': 'feiyu works in {root}, not in a project folder: the first change asks even in auto mode',
  'effort.status': 'effort {effort}',
  'sum.job': 'job {id} started, running in the background',
  'paste.lines': '[pasted {n} lines]',
  'paste.chars': '[pasted {n} characters]',
  'input.search': '(history search) {query} › ',
  'input.search_failing': '(no match) {query} › ',
  'last.none': 'No tool has run yet in this session.',
  'last.title': 'the last output: {name} {title}',
  'cmd.last': 'show the last tool call\'s whole output (also Ctrl+O)',
} as const;

export const zh: Record<keyof typeof en, string> = {
  'stdin.cut': '标准输入共有 {bytes} 字节：中间部分已截去，只把开头和结尾共 {kept} 个字符作为上下文发送。',
  'spin.checking': '正在检查 {tool}',
  'spin.asking': '等待你的回答',
  'time.days': '{n} 天',
  'resume.said': '已恢复 {ago}前的会话 {id}：“{request}”，{rounds} 轮工具调用。',
  'resume.mode': '会话沿用保存时的模式：{mode}。',
  'mode.auto_warning': '自动模式：运行命令和修改文件都不再询问；只有会破坏工作成果或修改受保护文件的操作仍会询问。按 Shift+Tab 或输入 /mode default 可切换。',
  'root.broad': 'feiyu 正在 {root} 中工作，而不是某个项目目录：其下的一切都属于工作区。在自动模式下，第一次修改前会先询问你。',
  'ask.broad_root': 'feiyu 在 {root} 中工作，而不是项目目录：即使在自动模式下，第一次修改也要先询问',
  'effort.status': '推理强度 {effort}',
  'sum.job': '后台任务 {id} 已启动，正在运行',
  'paste.lines': '[粘贴了 {n} 行]',
  'paste.chars': '[粘贴了 {n} 个字符]',
  'input.search': '（搜索历史）{query} › ',
  'input.search_failing': '（没有匹配）{query} › ',
  'last.none': '本次会话还没有运行过任何工具。',
  'last.title': '最近一次输出：{name} {title}',
  'cmd.last': '显示最近一次工具调用的完整输出（也可按 Ctrl+O）',
};
