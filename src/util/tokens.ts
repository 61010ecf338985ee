// Token estimates for text, used where no server count exists (context estimates, servers that
// report no usage). Pure arithmetic.

/**
 * About 4 characters per token for ASCII, 1 per character otherwise (CJK text is close to one
 * token a character, so counting it at 1/4 would let the context overflow unnoticed).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 128) ascii++;
  return Math.ceil(ascii / 4) + (text.length - ascii);
}
