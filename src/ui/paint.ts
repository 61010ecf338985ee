// Colour for the terminal: whether it is on (a terminal, unless NO_COLOR or TERM=dumb) and the
// painter that applies an SGR code, or nothing when colour is off. Shared by every printer module.

export type Out = { write(text: string): unknown; isTTY?: boolean; columns?: number };

export type Paint = (code: string, text: string) => string;

/** Colour on a terminal unless NO_COLOR or TERM=dumb. */
export function colourOn(out: Out, env: NodeJS.ProcessEnv = process.env): boolean {
  return out.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

export function painter(out: Out, env: NodeJS.ProcessEnv = process.env): Paint {
  return colourOn(out, env) ? (code, text) => `\x1b[${code}m${text}\x1b[0m` : (_code, text) => text;
}

export const color = { dim: '2', red: '31', green: '32', yellow: '33', blue: '34', magenta: '35', cyan: '36', bold: '1', boldRed: '1;31' } as const;
