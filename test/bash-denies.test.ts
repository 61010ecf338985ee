// Hard denies under obfuscated spellings, and the analysis's helpers (visible, brace expansion, sed scripts).
import { describe, expect, it } from 'vitest';
import { visible } from '../src/safety/bash/analysis.js';
import { checkSecretPath } from '../src/safety/secrets.js';
import { sedIsReadOnly } from '../src/safety/bash/sed.js';
import { expandBraces } from '../src/safety/bash/expand.js';
import { root, home, configDir, analyze, summary, safe, ask, deny, type Summary } from './bash-fixture.js';

describe('hard denies: obfuscated spellings', () => {
  const denied: string[] = [
    'cat ~/.ssh/id_rsa',
    'cat $HOME/.ssh/config',
    'cat ${HOME}/.ssh/config',
    'cat "$HOME"/.ssh/config',
    'cat "${HOME}/.ssh/config"',
    `cat ${home}/.ssh/config`,
    'cat ~/".ssh"/config',
    "cat ~/'.ssh'/config",
    'cat ~/.s"s"h/config',
    'cat ~/\\.ssh/config',
    'cat ~/.ss\\h/config',
    "cat ~/.ss$'h'/config",
    "cat ~/$'\\x2essh'/config",
    'cat ~/.ss?/config',
    'cat ~/.s*/config',
    'cat ~/.[s]sh/config',
    'cat ~/.ss[a-z]/*',
    'cat ~/.{ssh,cache}/config',
    'cat ~/.ss{g..i}/config',
    'cat ~/x/../.ssh/config',
    `cat /tmp/../${home}/.ssh/config`,
    'cat ~/../$(basename ~)/.ssh/config',
    'cd ~/.ssh && cat config',
    'cd ~ && cat .ssh/config',
    'cd ~; cd .ssh; cat config',
    'D=.ssh; cat ~/$D/config',
    'ls ~/.ssh',
    'cp -r ~/.ssh /tmp/keys',
    'tar czf /tmp/k.tgz ~/.ssh',
    'echo key >> ~/.ssh/authorized_keys',
    'cat links/keys/config',
    'cat${IFS}$HOME/.ssh/id_rsa',
    `python3 -c "print(open('$HOME/.ssh/id_rsa').read())"`,
    `node -e 'require("fs").readFileSync(process.env.HOME + "/.ssh/id_rsa")'`,
    'cat /srv/deploy/id_ed25519',
    'cat id_ecdsa_sk',
    'cat work.ppk',
    'cat ~/.aws/credentials',
    'ls ~/.aws',
    'gpg --homedir ~/.gnupg --export-secret-keys',
    'cat ~/.netrc',
    'cat ~/.git-credentials',
    'cat .env',
    'cat ./.env',
    'cat src/../.env',
    'cat .env.local',
    'cat .env.production',
    'cat src/.env',
    'cat .en?',
    'cat .e*',
    'source .env',
    '. ./.env',
    'cp .env /tmp/x',
    'ln -s .env leak',
    'git show HEAD:.env',
    'echo x > .env',
    'cp .env.example .env',
    'cat ~/.config/feiyu/keys.json',
    `cat ${configDir}/keys.json`,
    'ls ~/.config/feiyu',
    'echo "{}" > ~/.config/feiyu/approvals.json',
    'echo $(cat ~/.ssh/id_rsa)',
    'sh -c "cat ~/.ssh/id_rsa"',
    'eval "cat ~/.ssh/id_rsa"',
    'timeout 5 cat .env',
    'cat ~/.ssh/id_rsa (',
    'cat\u00a0~/.ssh/id_rsa',
    'cat ~/.ss\\\nh/id_rsa',
  ];
  it.each(denied)('%j is refused', async (command) => {
    expect(summary(await analyze(command))).toEqual(deny);
  });

  const allowed: [string, Summary][] = [
    ['cat .env.example', safe],
    ['cat .envrc', safe],
    ['cat ~/.ssh_notes', ask('path_outside')],
    ['cat ~/.aws/config', ask('path_outside')],
    ['cat keys/id_rsa.pub', safe],
    ['echo ssh', safe],
    ['ls src', safe],
    ['ls -a', safe],
  ];
  it.each(allowed)('%j is not a secret', async (command, expected) => {
    expect(summary(await analyze(command))).toEqual(expected);
  });

  it('checkSecretPath names what a path is', () => {
    const cases: [string, string | null][] = [
      [`${home}/.ssh`, 'the .ssh folder (SSH keys)'],
      [`${home}/.ssh/known_hosts`, 'the .ssh folder (SSH keys)'],
      [`/root/.gnupg/pubring.kbx`, 'the .gnupg folder (GnuPG keys)'],
      [`${home}/.aws/credentials`, 'AWS credentials (.aws/credentials)'],
      [`${home}/.aws`, 'AWS credentials (.aws/credentials)'],
      [`${home}/.aws/config`, null],
      [`${root}/deploy/id_rsa`, 'a private key (id_rsa)'],
      [`${root}/deploy/id_rsa.pub`, null],
      [`${home}/.netrc`, 'a credentials file (.netrc)'],
      // Other coding agents' logins: Claude Code's, Codex's, Gemini CLI's.
      [`${home}/.claude/.credentials.json`, 'a credentials file (.credentials.json)'],
      [`${home}/.claude/CLAUDE.md`, null],
      [`${root}/.env`, 'an environment file with secrets (.env)'],
      [`${root}/.ENV`, 'an environment file with secrets (.env)'],
      [`${root}/.env.staging`, 'an environment file with secrets (.env.staging)'],
      [`${root}/.env.example`, null],
      [`${root}/.env.sample`, null],
      [`${root}/.envrc`, null],
      [`${root}/.env/bin/python`, null],
      [`${configDir}/keys.json`, "feiyu's API keys (keys.json)"],
      [`${configDir}/approvals.json`, "feiyu's own configuration folder (settings, approvals and trust are changed by the user only)"],
      [`${root}/src/a.ts`, null],
    ];
    expect(cases.map(([p]) => [p, checkSecretPath(p, configDir)])).toEqual(cases);
    const logins: [string, string | null][] = [
      [`${home}/.codex/auth.json`, 'the credentials of a tool (~/.codex/auth.json)'],
      [`${home}/.gemini/oauth_creds.json`, 'the credentials of a tool (~/.gemini/oauth_creds.json)'],
      [`${home}/.codex/AGENTS.md`, null],
    ];
    expect(logins.map(([p]) => [p, checkSecretPath(p, configDir, home)])).toEqual(logins);
  });
});

describe('helpers', () => {
  it('visible() shows hidden characters', () => {
    expect(visible('ls\u00a0-la\u200b\x1b')).toBe('ls⟨U+00A0⟩-la⟨U+200B⟩⟨U+001B⟩');
  });

  it('expandBraces follows bash, escapes included, and refuses explosions', () => {
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(expandBraces('x{1..3}')).toEqual(['x1', 'x2', 'x3']);
    expect(expandBraces('{c..a}')).toEqual(['c', 'b', 'a']);
    expect(expandBraces('a\\{b,c}')).toEqual(['a\\{b,c}']);
    expect(expandBraces('{x}')).toEqual(['{x}']);
    expect(expandBraces('{1..100000}')).toBeNull();
    expect(expandBraces('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')).toBeNull();
  });

  it.each([
    ['p', true],
    ['1,5p', true],
    ['/a/,/b/p', true],
    ['\\,x/y,p', true],
    ['$!N;P;D', true],
    ['s/[/]/X/gp', true],
    ['y/abc/xyz/;p', true],
    ['1~2p;10q', true],
    ['/x/{p;q}', true],
    ['s/a/b/w out', false],
    ['s/a/b/e', false],
    ['s/[/]/X/w out', false],
    ['1e id', false],
    ['1r /etc/passwd', false],
    ['R x', false],
    ['W x', false],
    ['a text', true],
    ['1i\\\nline', true],
    ['b end; :end', true],
    ['s/a/b', false],
  ])('sedIsReadOnly(%j) is %s', (script, expected) => {
    expect(sedIsReadOnly(script)).toBe(expected);
  });
});
