// Images for the model: decodes a PNG, JPEG, GIF or WebP with sharp, scales it to what a model
// can use and re-encodes it when needed. Owns pixels and bytes only: no files, no wording of
// results (read.ts does that), no knowledge of which model will see it.

/** Models downscale anything longer than this on its long side: more pixels cost more and show no more. */
export const MAX_SIDE = 1568;
/** Anthropic refuses images over 5 MB of base64; 3.75 MB of bytes stays under it. */
const MAX_SENT_BYTES = 3.75 * 1024 * 1024;
const JPEG_QUALITY = 85;
/** Media types both wire formats accept as they are. */
const SENDABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export type ImageFacts = { width: number; height: number; format: string; bytes: number; frames: number };

export type PreparedImage = {
  original: ImageFacts;
  sent: { width: number; height: number; mediaType: string; data: Buffer; reencoded: boolean };
};

/** The approximate input tokens an image costs (Anthropic's published rule, close for OpenAI). */
export const imageTokens = (width: number, height: number): number => Math.ceil((width * height) / 750);

/**
 * Prepares an image for a model: scaled to MAX_SIDE on its long side, turned upright by its EXIF
 * orientation, PNG when it has alpha, else JPEG; only the first frame of an animation.
 * Sent as it is when none of that changes anything. Throws when sharp cannot decode it.
 */
export async function prepareImage(bytes: Buffer): Promise<PreparedImage> {
  const { default: sharp } = await import('sharp');
  const meta = await sharp(bytes).metadata();
  if (!meta.width || !meta.height || !meta.format) throw new Error('no image dimensions found');
  // EXIF orientations 5–8 are quarter turns: the picture's real width is the stored height.
  const turned = (meta.orientation ?? 1) >= 5;
  const width = turned ? meta.height : meta.width;
  const height = turned ? meta.width : meta.height;
  const frames = meta.pages ?? 1;
  const original: ImageFacts = { width, height, format: meta.format, bytes: bytes.length, frames };
  const mediaType = `image/${meta.format}`;
  const keep = Math.max(width, height) <= MAX_SIDE && frames === 1 && (meta.orientation ?? 1) === 1 && SENDABLE.has(mediaType) && bytes.length <= MAX_SENT_BYTES;
  if (keep) return { original, sent: { width, height, mediaType, data: bytes, reencoded: false } };

  const alpha = meta.hasAlpha === true;
  let side = Math.min(MAX_SIDE, Math.max(width, height));
  for (;;) {
    // sharp reads only the first frame of an animation unless asked for more.
    const pipeline = sharp(bytes).rotate().resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
    const { data, info } = await (alpha ? pipeline.png({ compressionLevel: 9 }) : pipeline.jpeg({ quality: JPEG_QUALITY, mozjpeg: true })).toBuffer({ resolveWithObject: true });
    // A noisy picture can stay too big even at MAX_SIDE: shrink until it fits.
    if (data.length <= MAX_SENT_BYTES || side <= 256) {
      return { original, sent: { width: info.width, height: info.height, mediaType: alpha ? 'image/png' : 'image/jpeg', data, reencoded: true } };
    }
    side = Math.floor(side * 0.75);
  }
}
