import { defineConfig } from 'vite';

// The UI is served from the app's own asset server (no network), so
// everything is bundled; nothing comes from a CDN. The reader of words'
// files (worker, WASM engine, trained data) are copied into public/ocr/ by
// scripts/ocr-assets.mjs before the build, and from there into dist/ocr/.
export default defineConfig({
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 200,
    rollupOptions: {
      input: {
        index: 'index.html',
        // The reader of words, bundled on its own for its browser test
        // (e2e/tests/ocr.test.mjs, whose page loads assets/ocr-check-*.js)
        // until the window uses it. A script, not a page: a second page
        // would move Vite's modulepreload polyfill out of the window's
        // bundle into a chunk of its own.
        'ocr-check': 'src/ocrcheck.ts',
      },
    },
  },
  server: { strictPort: false },
});
