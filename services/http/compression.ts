import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

// Responses of 1 KiB or more go out compressed when the client accepts it: brotli (quality 4, the
// plugin's default: a fraction of the CPU of quality 11 for a few per cent more bytes) or gzip. The
// plugin's types cover everything we serve: HTML, JavaScript and CSS (text/*), JSON and SVG (+xml).
//
// Request bodies are not decompressed: they stay as they were (raw bytes, checked against the 64 KiB
// body limit as sent), so the plugin's request side is switched off for every route.

export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Call right after creating the app, before any route is added (the plugin hooks into each new route). */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.decompress ??= false;
  });
  await app.register(compress, { global: true, threshold: COMPRESSION_THRESHOLD_BYTES, encodings: ['br', 'gzip'] });
}
