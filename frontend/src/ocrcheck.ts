// A second entry of the build (vite.config.ts), which only the reader of
// words' browser test loads, in a page of its own served beside the built
// app (e2e/tests/ocr.test.mjs): the real reader, as bundled, on
// window.sparkOcr. The window never loads it.
import { createReader, hasSimd, languages, tidyText } from './ocr.js';

const api = { createReader, hasSimd, languages, tidyText };

declare global {
  interface Window {
    sparkOcr?: typeof api;
  }
}

window.sparkOcr = api;
