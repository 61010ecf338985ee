import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../src/app/args.js';

const base = { print: false, outputFormat: 'text', trust: false, images: [], help: false, version: false };

describe('parseArgs', () => {
  it('reads the headless flags of DESIGN.md §3', () => {
    expect(parseArgs(['-p', 'fix the bug', '--output-format', 'json', '--mode=auto', '--max-rounds', '7', '-C', '/tmp/x', '--model', 'ds', '--sandbox', 'strict', '--lang', 'zh', '--trust', '--output-schema', 's.json'])).toEqual({
      ...base,
      print: true,
      message: 'fix the bug',
      outputFormat: 'json',
      mode: 'auto',
      maxRounds: 7,
      cwd: '/tmp/x',
      model: 'ds',
      sandbox: 'strict',
      lang: 'zh',
      trust: true,
      outputSchema: 's.json',
    });
  });

  it('takes images to attach, -i and --image, as often as given', () => {
    expect(parseArgs(['-i', 'shot.png', 'what is wrong here?', '--image=b.jpg'])).toEqual({ ...base, images: ['shot.png', 'b.jpg'], message: 'what is wrong here?' });
  });

  it('takes --resume with or without an id', () => {
    expect(parseArgs(['--resume'])).toEqual({ ...base, resume: true });
    expect(parseArgs(['--resume', '2f1c9a7e-aaaa'])).toEqual({ ...base, resume: '2f1c9a7e-aaaa' });
    expect(parseArgs(['--resume', 'fix the bug'])).toEqual({ ...base, resume: true, message: 'fix the bug' });
    expect(parseArgs(['--resume', '--output-format', 'json'])).toEqual({ ...base, resume: true, outputFormat: 'json' });
  });

  it('refuses bad usage with a key the CLI can word', () => {
    const err = (argv: string[]) => {
      try {
        parseArgs(argv);
      } catch (e) {
        return e instanceof UsageError ? { key: e.key, params: e.params } : e;
      }
      return undefined;
    };
    expect(err(['--mode', 'yolo'])).toEqual({ key: 'usage.one_of', params: { flag: '--mode', allowed: 'default, auto, plan, readonly', value: 'yolo' } });
    expect(err(['--max-rounds', '0'])).toEqual({ key: 'usage.max_rounds', params: { flag: '--max-rounds', value: '0' } });
    expect(err(['--bogus'])).toEqual({ key: 'usage.unknown', params: { flag: '--bogus' } });
    expect(err(['--model'])).toEqual({ key: 'usage.needs_value', params: { flag: '--model' } });
  });

  it('reads Claude Code’s flags into feiyu’s', () => {
    expect(
      parseArgs(['-p', '--max-turns', '3', '-c', '--permission-mode', 'acceptEdits', '--output-format', 'stream-json', '--input-format', 'stream-json', '--include-partial-messages', '--verbose', '--system-prompt', 'Be terse.', '--append-system-prompt=Cite files.']),
    ).toEqual({
      ...base,
      print: true,
      maxRounds: 3,
      resume: true,
      mode: 'default',
      acceptEdits: true,
      outputFormat: 'stream-json',
      inputFormat: 'stream-json',
      partial: true,
      systemPrompt: 'Be terse.',
      appendSystemPrompt: 'Cite files.',
    });
    expect(parseArgs(['--permission-mode', 'bypassPermissions', '-r', '20250101-120000-abcdef'])).toEqual({ ...base, mode: 'auto', resume: '20250101-120000-abcdef' });
    expect(parseArgs(['--dangerously-skip-permissions', '--output-format', 'events'])).toEqual({ ...base, mode: 'auto', outputFormat: 'events' });
  });

  it('takes rule lists as Claude does: comma or space separated, several values, repeated flags; the message after them stays the message', () => {
    expect(parseArgs(['-p', '--allowedTools', 'Bash(git log:*),Bash(git diff:*)', 'Read', 'Edit', 'explain the last commit', '--disallowedTools=WebFetch', '--disallowed-tools', 'Bash(rm -rf:*) Write'])).toEqual({
      ...base,
      print: true,
      allow: ['Bash(git log:*)', 'Bash(git diff:*)', 'Read', 'Edit'],
      deny: ['WebFetch', 'Bash(rm -rf:*)', 'Write'],
      message: 'explain the last commit',
    });
  });

  it('refuses stream-json input without stream-json output', () => {
    expect(() => parseArgs(['-p', '--input-format', 'stream-json'])).toThrow(UsageError);
  });

  it('passes words after -- through as the message', () => {
    expect(parseArgs(['--', '-p', 'x'])).toEqual({ ...base, message: '-p x' });
  });
});
