// The catalogue part of deferred tool schemas: /context's tool rows and the summaries of
// load_tools and of a cold tool's first call.

export const en = {
  'sum.tools_loaded': '{n} tools loaded',
  'sum.tools_loaded_one': '1 tool loaded',
  'sum.taught': 'not run: its parameters were sent',
  'tools.declared': 'tool definitions ({n} declared)',
  'tools.cold_lines': 'cold tools ({n}, one line each)',
  'tools.head': 'Tools (estimated tokens):',
  'tools.hot': 'hot · {schema}',
  'tools.loaded': 'loaded · {schema}',
  'tools.cold': 'cold · line {line}, {schema} when loaded',
  'tools.demoted': 'cold (over the budget) · line {line}, {schema} when loaded',
  'tools.off': 'Deferred tool schemas are off (deferTools: false): every tool is declared in every request.',
} as const;

export const zh: Record<keyof typeof en, string> = {
  'sum.tools_loaded': '已加载 {n} 个工具',
  'sum.tools_loaded_one': '已加载 1 个工具',
  'sum.taught': '未运行：已发回其参数说明',
  'tools.declared': '工具定义（声明 {n} 个）',
  'tools.cold_lines': '冷工具（{n} 个，每个一行）',
  'tools.head': '工具（估计 tokens）：',
  'tools.hot': '热 · {schema}',
  'tools.loaded': '已加载 · {schema}',
  'tools.cold': '冷 · 一行 {line}，加载后 {schema}',
  'tools.demoted': '冷（超出预算）· 一行 {line}，加载后 {schema}',
  'tools.off': '延迟工具定义已关闭（deferTools: false）：每个请求都声明全部工具。',
};
