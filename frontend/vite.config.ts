import { defineConfig } from 'vite';

// The UI is served from the app's own asset server (no network), so
// everything is bundled; nothing comes from a CDN.
export default defineConfig({
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 200,
  },
  server: { strictPort: false },
});
