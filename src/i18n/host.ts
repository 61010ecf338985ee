// The host's and the editor protocol's part of the interface catalogue (catalogue.ts joins the
// parts): what a library caller or an editor is told when a task cannot be started or answered,
// and the names ACP shows for the permission modes, in both languages side by side.

export const en = {
  'host.closed': 'This host is closed: it takes no more tasks.',
  'host.busy': 'Task {id} is still running: wait for it or cancel it before sending it another message.',
  'host.no_task': 'There is no task {id} in this host.',
  'acp.mode_default': 'Ask',
  'acp.mode_default_about': 'Asks before edits and commands that change things.',
  'acp.mode_auto': 'Auto',
  'acp.mode_auto_about': 'Edits and runs commands in the sandbox without asking.',
  'acp.mode_plan': 'Plan',
  'acp.mode_plan_about': 'Reads and plans; changes nothing until the plan is approved.',
  'acp.mode_readonly': 'Read-only',
  'acp.mode_readonly_about': 'Reads only; every change is refused.',
  'acp.allow_once': 'Allow',
  'acp.allow_always': 'Always allow',
  'acp.reject_once': 'Reject',
  'acp.plan_approve': 'Approve the plan',
  'acp.plan_reject': 'Keep planning',
  'acp.plan_title': 'Approve this plan?',
} as const;

export const zh: Record<keyof typeof en, string> = {
  'host.closed': '此宿主已关闭，不再接受任务。',
  'host.busy': '任务 {id} 仍在运行：请等待它结束或取消它，再发送新的消息。',
  'host.no_task': '此宿主中没有任务 {id}。',
  'acp.mode_default': '询问',
  'acp.mode_default_about': '修改文件和运行会改变内容的命令前先询问。',
  'acp.mode_auto': '自动',
  'acp.mode_auto_about': '在沙箱中直接修改文件、运行命令，不询问。',
  'acp.mode_plan': '计划',
  'acp.mode_plan_about': '只阅读和制定计划；计划获批前不做任何修改。',
  'acp.mode_readonly': '只读',
  'acp.mode_readonly_about': '只阅读；任何修改都会被拒绝。',
  'acp.allow_once': '允许',
  'acp.allow_always': '始终允许',
  'acp.reject_once': '拒绝',
  'acp.plan_approve': '批准计划',
  'acp.plan_reject': '继续计划',
  'acp.plan_title': '批准这个计划吗？',
};
