import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { preloadRuntimeConfig } from './app/provider';
import { preloadPageFor } from './app/router';
import './index.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html must contain <div id="root">');

// The settings (index.html preloads them) and the code of the page the app opens on start loading
// now, beside each other and the identity client, instead of one after the other; a failure shows
// when the app renders, as before (docs/decisions/0020-web-delivery.md, "Update (issue 15, dashboard)").
void preloadRuntimeConfig();
preloadPageFor(window.location.pathname).catch(() => undefined);

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
