#!/usr/bin/env node
// The entry point: parses the command line, builds the App, and runs the REPL or headless mode,
// exiting with the codes of DESIGN.md §3. The only module nothing else imports.

import { createInterface } from 'node:readline';
import { version } from './app/app.js';
import { openHost, type Host } from './app/host.js';
import { ConfigError, readStart } from './app/config.js';
import { noticeText } from './i18n/explain.js';
import { parseArgs, UsageError, type CliArgs } from './app/args.js';
import { EXIT, runHeadless, startFailure } from './app/headless.js';
import { readPiped, STDIN_CAP, withPipedContext } from './app/stdin.js';
import { streamJsonMessages } from './app/streaminput.js';
import { detectLang, setLang, t } from './i18n/index.js';
import { installExitHandlers } from './tools/jobs.js';
import { isSecretVariable } from './safety/envfilter.js';
import { hideFromEnviron } from './util/environ.js';
import { inert } from './util/text.js';

/**
 * One yes/no question on the terminal before the REPL starts (project trust), answered with one
 * key like every other question. What was typed after that key (a first message) is put back for
 * the REPL; an Enter right after the key is taken as part of the answer.
 */
async function askKey(question: string): Promise<boolean> {
  const stdin = process.stdin;
  process.stdout.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  const chunk = await new Promise<Buffer>((resolve) => stdin.once('data', resolve));
  // The terminal stays raw: the REPL comes next, and in cooked mode the kernel would turn an Enter
  // typed meanwhile into a line feed, which the REPL reads as Ctrl+J (go on to another line).
  // Node puts the terminal back as it was when the process exits.
  stdin.pause();
  const text = chunk.toString('utf8');
  // An escape sequence (an arrow key) is one key: none of it reaches the REPL.
  const key = text.startsWith('\x1b') ? text : ([...text][0] ?? '');
  const rest = text.slice(key.length).replace(/^\r\n?|^\n/, '');
  if (rest) stdin.unshift(Buffer.from(rest, 'utf8'));
  process.stdout.write((key.length === 1 && key >= ' ' ? key : '') + '\n');
  return key.toLowerCase() === 'y';
}

async function headless(host: Host, task: string, args: CliArgs): Promise<number> {
  // Claude's stream-json input: messages are read from stdin as they come, one turn each.
  const streaming = args.inputFormat === 'stream-json';
  // Otherwise piped text is the message, or the context of the one given (as claude -p reads it).
  const piped = streaming || process.stdin.isTTY ? undefined : await readPiped(process.stdin, args.message === undefined ? Infinity : STDIN_CAP);
  const message = streaming ? '' : args.message === undefined ? (piped?.text.trim() ?? '') : piped ? withPipedContext(args.message, piped) : args.message;
  if (!message && !streaming) throw new UsageError('cli.no_prompt', {});
  if (piped?.cut && args.message !== undefined) {
    const [bytes, kept] = [piped.bytes, STDIN_CAP].map((n) => n.toLocaleString('en-US'));
    process.stderr.write(t('stdin.cut', { bytes: bytes!, kept: kept! }) + '\n');
  }
  for (const n of host.app(task).notices) process.stderr.write(inert(noticeText(n, true)) + '\n');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  const warn = (text: string) => process.stderr.write(inert(text) + '\n');
  const messages = streaming ? streamJsonMessages(createInterface({ input: process.stdin, crlfDelay: Infinity }), warn) : [message];
  try {
    return await runHeadless({
      host,
      task,
      messages,
      images: args.images,
      format: args.outputFormat,
      partial: args.partial,
      stdout: process.stdout,
      stderr: process.stderr,
      signal: controller.signal,
    });
  } finally {
    await host.close();
  }
}

async function interactive(host: Host, task: string, args: CliArgs): Promise<number> {
  const { Repl } = await import('./ui/repl.js');
  const repl = new Repl({ host, task, version: version(), initialMessage: args.message, images: args.images, input: process.stdin, output: process.stdout });
  await repl.run();
  await host.close();
  return EXIT.ok;
}

/** `--acp`: an editor drives feiyu over stdio until it closes the connection. */
async function editor(args: CliArgs): Promise<number> {
  const { serveAcp } = await import('./acp/server.js');
  await serveAcp({ args, config: { env: process.env }, version: version(), input: process.stdin, output: process.stdout });
  return EXIT.ok;
}

async function main(): Promise<number> {
  // Commands run outside the sandbox could read the API keys in /proc/$PPID/environ.
  hideFromEnviron(isSecretVariable);
  let args: CliArgs | undefined;
  try {
    args = parseArgs(process.argv.slice(2));
    // Settings are read once, here: the language must be known before anything prints; a broken
    // file is reported by openHost, in the language chosen without it.
    const start = readStart(args, process.env);
    setLang(start.lang);
    if (args.help) return void process.stdout.write(`${t('cli.usage')}\n\n${t('compat.usage')}\n`), EXIT.ok;
    if (args.version) return void process.stdout.write(version() + '\n'), EXIT.ok;
    if (args.acp) return await editor(args);
    const canAsk = !args.print && process.stdin.isTTY === true;
    const host = await openHost(args, {
      env: process.env,
      start,
      allowNoModel: !args.print,
      askTrust: canAsk ? (what) => askKey(t('trust.ask', { what: what.map((w) => `  ${w}`).join('\n') })) : undefined,
    }, { replay: 'message' });
    // One task: a new session, or the one --resume names.
    const task = await host.open({ resume: args.resume, fork: args.forkSession });
    // Background jobs die with feiyu, however it ends (Ctrl+C: the REPL, or headless's abort).
    installExitHandlers(host.app(task).jobs, args.print ? ['SIGHUP'] : ['SIGTERM', 'SIGHUP']);
    return args.print ? await headless(host, task, args) : await interactive(host, task, args);
  } catch (err) {
    if (err instanceof UsageError) {
      // The arguments did not parse: --lang may still be among them.
      const argv = process.argv.slice(2);
      const lang = argv.find((a) => a.startsWith('--lang='))?.slice(7) ?? argv[argv.indexOf('--lang') + 1];
      setLang(detectLang(argv.includes('--lang') || lang ? lang : undefined, undefined, process.env));
      process.stderr.write(t('cli.bad_usage', { msg: t(err.key, err.params) }) + '\n');
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      const msg = t('cli.config_error', { msg: err.message });
      process.stderr.write(msg + '\n');
      // A script reading JSON gets a result object that says what went wrong.
      if (args?.print && args.outputFormat !== 'text') process.stdout.write(startFailure(msg));
      return EXIT.usage;
    }
    throw err;
  }
}

/**
 * A reader may close our output early (`feiyu -p … | head -1`): from then on output is dropped,
 * quietly, and the run goes on to its end (its work is not thrown away).
 */
function dropOutputOnceClosed(stream: NodeJS.WriteStream): void {
  stream.on('error', () => {
    // EPIPE, or a write after it: nobody is reading, and there is nowhere to say so.
  });
}

/** Resolves once everything written to `stream` so far has reached the reader (or the reader is gone). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/** Exits once the output is out: a pipe takes 64 KiB at once, and process.exit drops the rest. */
async function exit(code: number): Promise<never> {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // Exit at once: idle keep-alive sockets or a finished readline must not hold the process.
  process.exit(code);
}

dropOutputOnceClosed(process.stdout);
dropOutputOnceClosed(process.stderr);
main().then(exit, (err: unknown) => {
  process.stderr.write(`feiyu: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return exit(EXIT.error);
});
