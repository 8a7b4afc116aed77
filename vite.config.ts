// Vite builds the Hub SPA from web/ into web/dist, which the hub serves at / (server/app.ts). In dev
// (`npx vite`), /api and /mcp go to a hub on :9188.
import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

const HUB = 'http://127.0.0.1:9188';

// The hub refuses any Origin but its own page (DNS-rebinding protection), so the dev proxy presents
// the hub's own origin instead of the dev server's.
const proxy: ProxyOptions = {
  target: HUB,
  changeOrigin: true,
  configure: (server) => {
    server.on('proxyReq', (req) => req.setHeader('origin', HUB));
  },
};

export default defineConfig({
  root: 'web',
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Budgets are enforced by scripts/bench/spa.ts (first page < 300 KB gzipped), not by warnings here.
    chunkSizeWarningLimit: 1024,
    // Rolldown warns when plugins take a large share of a build's time, which on this shared 2-core
    // machine depends on the load, not on the build; build speed is not measured by warnings either.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': proxy, '/mcp': proxy },
  },
});
