// The files a command overwrites through its own options and operands (cp, mv, install, ln -f,
// rsync, tee, sort -o, curl -o/-O, wget -O), its arguments read by the analysis's getopt, as the
// program reads them. Pure: no file system, no git. A target known only when the command runs,
// or arguments this cannot read, count as `null` (any file).

import { basename } from 'node:path';
import { getopt, isOption, optionTable, type Arg, type OptionTable, type ParsedOpt } from './bash/getopt.js';
import { PROGRAMS } from './bash/programs.js';

const V = '--help --version';
const BACKUP = '-b --backup[=] -S|--suffix=';
const TARGET = '-t|--target-directory= -T|--no-target-directory';

const TABLES = {
  cp: optionTable(`${BACKUP} ${TARGET} -n|--no-clobber -u --update[=] -f|--force -i|--interactive -r|-R|--recursive -a|--archive -v|--verbose -p --preserve[=] --no-preserve= --parents -l|--link -s|--symbolic-link -d -P|--no-dereference -L|--dereference -H -x|--one-file-system -Z --context[=] --sparse= --reflink[=] --remove-destination --strip-trailing-slashes --attributes-only --copy-contents --keep-directory-symlink --debug ${V}`),
  mv: optionTable(`${BACKUP} ${TARGET} -n|--no-clobber -u --update[=] -f|--force -i|--interactive -v|--verbose -Z|--context --strip-trailing-slashes --exchange --no-copy --debug ${V}`),
  install: optionTable(`${BACKUP} ${TARGET} -m|--mode= -o|--owner= -g|--group= -d|--directory -C|--compare -D -p|--preserve-timestamps -s|--strip --strip-program= -v|--verbose -Z --context[=] --preserve-context --debug ${V}`),
  ln: optionTable(`${BACKUP} ${TARGET} -d|-F|--directory -f|--force -i|--interactive -L|--logical -n|--no-dereference -P|--physical -r|--relative -s|--symbolic -v|--verbose ${V}`),
  rsync: optionTable(`-b|--backup --backup-dir= --suffix= -v|--verbose -q|--quiet -a|--archive -r|--recursive -l|--links -p|--perms -t|--times -o|--owner -g|--group -D -z|--compress -h|--human-readable -P --progress --partial -n|--dry-run -u|--update -c|--checksum -e|--rsh= --delete --exclude= --include= --exclude-from= --include-from= --files-from= --ignore-existing -f|--filter= -B|--block-size= -T|--temp-dir= -M|--remote-option= --chmod= --compare-dest= --copy-dest= --link-dest= --partial-dir= --log-file= --password-file= --port= --timeout= --max-size= --min-size= --bwlimit= -i|--itemize-changes --stats -x|--one-file-system -H|--hard-links -A|--acls -X|--xattrs -S|--sparse -W|--whole-file -R|--relative -L|--copy-links -k|--copy-dirlinks -K|--keep-dirlinks -E|--executability -O|--omit-dir-times -m|--prune-empty-dirs --mkpath --info= --debug= ${V}`),
  tee: optionTable(`-a|--append -i|--ignore-interrupts -p --output-error[=] ${V}`),
  sort: PROGRAMS.sort!.options as OptionTable,
  curl: optionTable(`-o|--output= -O|--remote-name --remote-name-all --output-dir= --create-dirs -s|--silent -S|--show-error -L|--location -f|--fail --fail-with-body -k|--insecure -v|--verbose -i|--include -I|--head -X|--request= -H|--header= -d|--data= --data-raw= --data-binary= --data-urlencode= -F|--form= -u|--user= -A|--user-agent= -e|--referer= -b|--cookie= -c|--cookie-jar= -C|--continue-at= -D|--dump-header= -E|--cert= -K|--config= -m|--max-time= --connect-timeout= --retry= -r|--range= -T|--upload-file= -U|--proxy-user= -w|--write-out= -x|--proxy= -y|--speed-time= -Y|--speed-limit= -z|--time-cond= --url= --compressed -#|--progress-bar -N|--no-buffer -4|--ipv4 -6|--ipv6 -G|--get -g|--globoff -Z|--parallel ${V}`),
  wget: optionTable(`-O|--output-document= -o|--output-file= -a|--append-output= -P|--directory-prefix= -e|--execute= -i|--input-file= -t|--tries= -T|--timeout= -U|--user-agent= -w|--wait= -Q|--quota= -l|--level= -A|--accept= -R|--reject= -D|--domains= -I|--include-directories= -X|--exclude-directories= --header= -n= -q|--quiet -v|--verbose -c|--continue -N|--timestamping -r|--recursive -k|--convert-links -p|--page-requisites -m|--mirror -b|--background ${V}`),
};

const joinTo = (dir: string, src: string): string => `${dir.replace(/\/+$/, '')}/${basename(src)}`;

/**
 * The paths program `name` (a base name) would overwrite, `null` for one it cannot name; an empty
 * list when it overwrites nothing it is told to keep (a backup, no-clobber, append, a dry run), or
 * when the program would refuse its arguments (an ambiguous or missing option value).
 */
export function clobberTargets(name: string, args: (string | null)[]): (string | null)[] {
  if (!Object.hasOwn(TABLES, name)) return [];
  const parsed = getopt(args.map((value): Arg => ({ value, pattern: value ?? '…' })), TABLES[name as keyof typeof TABLES]);
  if ('problem' in parsed) return parsed.problem === 'unknown_value' || parsed.problem === 'unknown_option' ? [null] : [];
  const opts = (...names: string[]): ParsedOpt[] => parsed.opts.filter((o) => isOption(o, names));
  const has = (...names: string[]) => opts(...names).length > 0;
  const values = (...names: string[]) => opts(...names).map((o) => o.value ?? null);
  const operands = parsed.positionals.map((a) => a.value!);
  switch (name) {
    case 'cp': case 'mv': case 'install': case 'ln': case 'rsync': {
      const backup = opts('-b', '--backup').some((o) => o.value !== 'none' && o.value !== 'off');
      // ln's -n and --directory mean other things; elsewhere they keep what is there (or write nothing).
      const keeps = name !== 'ln' && has('-n', '--no-clobber', '--ignore-existing', '--dry-run', '--directory');
      if (backup || keeps) return [];
      if (values('--update').some((v) => v === 'none' || v === 'none-fail')) return [];
      if (name === 'ln' && !has('--force')) return [];
      const target = values('--target-directory');
      if (target.length) return target.flatMap((dir) => operands.map((src) => (dir === null ? null : joinTo(dir, src))));
      if (name === 'ln' && operands.length === 1) return [joinTo('.', operands[0]!)];
      if (operands.length < 2) return [];
      const dest = operands.at(-1)!;
      // Without stat, the destination may be a file or a folder: both readings count.
      return has('--no-target-directory') ? [dest] : [dest, ...operands.slice(0, -1).map((src) => joinTo(dest, src))];
    }
    case 'tee':
      return has('--append') ? [] : operands;
    case 'sort':
      return values('--output');
    case 'curl': {
      // Files land in --output-dir, which this does not follow: any file.
      if (has('--output-dir')) return [null];
      const remote = has('--remote-name', '--remote-name-all') ? operands.map((url) => basename(url.replace(/[?#].*$/, '')) || null) : [];
      return [...values('--output'), ...remote].filter((p) => p !== '-');
    }
    case 'wget':
      return values('--output-document').filter((p) => p !== '-');
  }
  return [];
}
