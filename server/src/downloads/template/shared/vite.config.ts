import { defineConfig } from 'vite';

// No React plugin: Vite compiles TSX with React's automatic JSX runtime on its own, which keeps
// the install small. server.js runs Vite in middleware mode for `npm run dev`.
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic' } },
  build: { outDir: 'dist', sourcemap: true },
});
