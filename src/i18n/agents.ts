// The catalogue part of specialist agents: /agents, the lines a specialist's run prints, its
// spend on the status line and in /cost, confirmations naming it, and the notices about
// definition files and the side model.

export const en = {
  'agents.head': 'Specialists (task agent=NAME; files in {dirs}):',
  'agents.item': '{name} · {origin} · {model} · {rounds} rounds, {tokens} tokens · tools: {tools}',
  'agents.origin_builtin': 'built in',
  'agents.origin_user': 'user',
  'agents.origin_project': '.feiyu/agents',
  'agents.origin_claude': '.claude/agents',
  'agents.model_inherit': 'session model',
  'agents.all_tools': 'all it may have',
  'agents.tool': '  ↳ {agent} · {tool} {title}',
  'agents.end': '↳ {agent} {status} · note {note} · {tokens} tokens · {cost}',
  'agents.spend': '{agent} {tokens} tokens {cost}',
  'agents.cost_head': 'Specialists this session:',
  'agents.cost_item': '  {agent}: {tokens} tokens, {cost}',
  'agents.asks': '[{agent}] ',
  'agents.file_broken': 'Specialist definition {file} ignored: {why}',
  'agents.unknown_tools': 'Specialist {agent} asks for tools that do not exist or that no specialist gets: {tools}',
  'agents.side_unknown': 'sideModel "{name}" is not in keys.json: the session model does that work',
  'agents.expect_model': 'a model name from keys.json',
  'sum.handoff': '{status} · note {note}',
  'cmd.agents': 'list the specialists the task tool can hand work to',
} as const;

export const zh: Record<keyof typeof en, string> = {
  'agents.head': '专家代理（task agent=名称；定义文件在 {dirs}）：',
  'agents.item': '{name} · {origin} · {model} · {rounds} 轮，{tokens} tokens · 工具：{tools}',
  'agents.origin_builtin': '内置',
  'agents.origin_user': '用户',
  'agents.origin_project': '.feiyu/agents',
  'agents.origin_claude': '.claude/agents',
  'agents.model_inherit': '会话模型',
  'agents.all_tools': '可给的全部工具',
  'agents.tool': '  ↳ {agent} · {tool} {title}',
  'agents.end': '↳ {agent} {status} · 笔记 {note} · {tokens} tokens · {cost}',
  'agents.spend': '{agent} {tokens} tokens {cost}',
  'agents.cost_head': '本会话的专家代理：',
  'agents.cost_item': '  {agent}：{tokens} tokens，{cost}',
  'agents.asks': '[{agent}] ',
  'agents.file_broken': '已忽略专家定义 {file}：{why}',
  'agents.unknown_tools': '专家 {agent} 要求的工具不存在或不能给专家：{tools}',
  'agents.side_unknown': 'sideModel "{name}" 不在 keys.json 中：改由会话模型完成这些工作',
  'agents.expect_model': 'keys.json 中的模型名',
  'sum.handoff': '{status} · 笔记 {note}',
  'cmd.agents': '列出 task 工具可以委派的专家代理',
};
