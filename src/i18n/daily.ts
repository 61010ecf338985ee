// The catalogue part of the daily-driver features (issue 14): live output, the keys and commands
// users bring from other agents, and the first-day fixes. Both languages side by side.

export const en = {
  'stdin.cut': 'stdin held {bytes} bytes: its middle was cut, and its first and last {kept} characters in all were sent as context.',
} as const;

export const zh: Record<keyof typeof en, string> = {
  'stdin.cut': '标准输入共有 {bytes} 字节：中间部分已截去，只把开头和结尾共 {kept} 个字符作为上下文发送。',
};
