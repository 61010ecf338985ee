// The bash analysis: whole results for representative commands, and its limits on size.
import { describe, expect, it } from 'vitest';
import { home, analyze, summary, safe, ask, deny } from './bash-fixture.js';

describe('analyzeBash: whole results', () => {
  it('a safe pipeline lists every simple command', async () => {
    expect(await analyze('ls -la src | wc -l && git status')).toEqual({
      verdict: 'safe',
      constructs: [],
      commands: [
        { argv: ['ls', '-la', 'src'], text: 'ls -la src', issue: null, destructive: null },
        { argv: ['wc', '-l'], text: 'wc -l', issue: null, destructive: null },
        { argv: ['git', 'status'], text: 'git status', issue: null, destructive: null },
      ],
      destructive: false,
      opaque: false,
    });
  });

  it('a substitution asks, and the commands inside it are still listed', async () => {
    expect(await analyze('echo "today: $(date +%F)"')).toEqual({
      verdict: 'ask',
      code: 'substitution',
      reason: 'it contains the command substitution $(date +%F)',
      constructs: [{ code: 'substitution', reason: 'it contains the command substitution $(date +%F)', params: { part: '$(date +%F)' } }],
      commands: [
        { argv: ['date', '+%F'], text: 'date +%F', issue: null, destructive: null },
        { argv: ['echo', null], text: 'echo "today: $(date +%F)"', issue: null, destructive: null },
      ],
      destructive: false,
      opaque: false,
    });
  });

  it('wrappers are judged by what they run; quoting is removed from the words', async () => {
    expect(await analyze(`timeout 60 npm run "unit tests" && bash -c 'git commit -m "a b"'`)).toEqual({
      verdict: 'ask',
      code: 'not_allowlisted',
      reason: 'npm is not on the read-only allowlist',
      constructs: [],
      commands: [
        { argv: ['npm', 'run', 'unit tests'], text: 'timeout 60 npm run "unit tests"', issue: { code: 'not_allowlisted', reason: 'npm is not on the read-only allowlist', params: { program: 'npm' } }, destructive: null },
        { argv: ['git', 'commit', '-m', 'a b'], text: 'git commit -m "a b"', issue: { code: 'not_allowlisted', reason: 'git commit is not on the read-only allowlist', params: { program: 'git' } }, destructive: null },
      ],
      destructive: false,
      opaque: false,
    });
  });

  it('a commit message from a literal here-document is a plain word', async () => {
    const r = await analyze(`git commit -m "$(cat <<'EOF'\nFix the parser\n\nDetails: $HOME stays literal\nEOF\n)"`);
    expect(r.constructs).toEqual([]);
    expect(r.commands.map((c) => c.argv)).toEqual([['git', 'commit', '-m', 'Fix the parser\n\nDetails: $HOME stays literal']]);
  });

  it('a hard deny explains itself to the model', async () => {
    const r = await analyze('cat ~/.ssh/id_rsa');
    expect(r.verdict).toBe('deny');
    expect(r.reason).toBe(
      `${home}/.ssh/id_rsa touches the .ssh folder (SSH keys). feiyu never reads, writes, copies, moves, lists or sources secrets, in any mode. ` +
        'If you only need to mention the name (for example in .gitignore), edit that file with edit_file instead of a shell command; otherwise ask the user to do this step themselves.',
    );
  });
});

describe('analyzeBash: size', () => {
  it('500 parts joined by && are analysed part by part', async () => {
    const r = await analyze(Array(500).fill('ls src').join(' && '));
    expect(summary(r)).toEqual(safe);
    expect(r.commands).toHaveLength(500);
    const last = await analyze([...Array(500).fill('ls'), 'npm test'].join(' && '));
    expect(summary(last)).toEqual(ask('not_allowlisted'));
  });

  it('a 2000-stage pipeline and 300 nested substitutions do not blow up', async () => {
    expect(summary(await analyze(Array(2000).fill('ls').join(' | ')))).toEqual(safe);
    expect(summary(await analyze('echo ' + '$('.repeat(300) + 'x' + ')'.repeat(300)))).toEqual(ask('substitution'));
  });

  it('too long a command asks without being analysed, but is still searched for secrets', async () => {
    const long = 'ls ' + 'a'.repeat(100_001);
    expect(summary(await analyze(long))).toEqual(ask('too_long'));
    expect(summary(await analyze(`cat ~/.ssh/id_rsa ${'a'.repeat(100_001)}`))).toEqual(deny);
  });

  it('10000 nested subshells end in an answer, not a crash', async () => {
    const r = await analyze('('.repeat(10_000) + 'ls' + ')'.repeat(10_000));
    expect(r.verdict).toBe('ask');
    expect(['construct', 'too_complex', 'parse_error']).toContain(r.code);
  });
});
