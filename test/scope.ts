// What a test owns and must not outlive it: the processes it starts, marked by an environment
// variable that every descendant inherits (detached process groups and orphans included), and the
// checks to run once they are gone. test/setup.ts wraps every test in a scope; a test body that
// goes on after its test ended (a timeout) is refused instead of acting during the next test.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, aroundEach } from 'vitest';

const MARK = 'FEIYU_TEST_OWNER';
const POLL_MS = 25;

export class TestScope {
  private ended = false;
  private marked = false;
  private readonly checks: (() => void | Promise<void>)[] = [];

  constructor(private readonly id: string) {}

  /** Environment entries for every process the test starts: they and their descendants are killed when it ends. */
  get env(): Record<string, string> {
    this.refuseIfEnded();
    this.marked = true;
    return { [MARK]: this.id };
  }

  /** Runs `check` when the test ends, after its processes are gone; a throw fails the test. */
  atEnd(check: () => void | Promise<void>): void {
    this.checks.push(check);
  }

  refuseIfEnded(): void {
    if (this.ended) throw new Error('this test has already ended (it timed out?): it may not start or wait for anything more');
  }

  /** Contract: called once, by the last afterEach hook; kills what the test started, then runs the checks. */
  async end(): Promise<void> {
    this.ended = true;
    if (this.marked) await killMarked(this.id);
    for (const check of this.checks) await check();
  }
}

const scopes = new AsyncLocalStorage<TestScope>();
let serial = 0;

/** For the setup file: a scope around every test (its hooks included), ended after every other afterEach hook. */
export function installScopes(): void {
  aroundEach((runTest) => scopes.run(new TestScope(`${process.pid}.${++serial}`), runTest));
  afterEach(() => scopes.getStore()?.end());
}

/** The running test's scope; throws outside a test, and in a test body that went on after its test ended. */
export function currentTest(): TestScope {
  const scope = scopes.getStore();
  if (!scope) throw new Error('currentTest() is only available inside a test');
  scope.refuseIfEnded();
  return scope;
}

/**
 * Polls `probe` until it returns something truthy and returns that, or throws after `ms`, naming
 * `what` (a function: worded at the time of failure). For anything that happens after an action:
 * a process ending, a file appearing, a request arriving, text on a screen.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, what: string | (() => string), ms = 10_000): Promise<NonNullable<Awaited<T>>> {
  const deadline = Date.now() + ms;
  for (;;) {
    scopes.getStore()?.refuseIfEnded();
    const value = await probe();
    if (value) return value as NonNullable<Awaited<T>>;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** True while `pid` exists and is not a zombie (this container's PID 1 does not reap orphans). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Live processes (zombies aside) whose command line holds `marker`: what a test started by a name of its own. */
export function runningWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && alive(Number(name)))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** Live processes whose environment carries the mark `id`. */
function marked(id: string): number[] {
  const entry = `${MARK}=${id}`;
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${name}/environ`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (environ.split('\0').includes(entry) && alive(Number(name))) pids.push(Number(name));
  }
  return pids;
}

/** SIGKILLs every process marked `id` until none is left; a process may fork while the others die. */
async function killMarked(id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let pids = marked(id); pids.length > 0; pids = marked(id)) {
    if (Date.now() > deadline) throw new Error(`processes ${pids.join(', ')} started by the test survived SIGKILL`);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
