import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The server renders every HTML shell itself and resolves the entry through the manifest key
// `src/main.tsx`, so there is no index.html. It serves `dist/assets/*` at `/assets/*`: with base `/`
// and assetsDir `assets`, every emitted URL (manifest `file`, `css`, `imports`, and the runtime
// preload URLs of lazy chunks) is `/assets/<file>`.
export default defineConfig({
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    manifest: true,
    // The module preload polyfill is only injected for HTML entries; keep it off explicitly, the
    // pages forbid inline scripts anyway.
    modulePreload: { polyfill: false },
    sourcemap: false,
    // The entry is React DOM, the canvas theme, zod and the InstUI parts every page shows
    // (about 575 kB, 165 kB gzipped); everything view-specific is a lazy chunk.
    chunkSizeWarningLimit: 650,
    rolldownOptions: {
      input: 'src/main.tsx',
    },
  },
});
