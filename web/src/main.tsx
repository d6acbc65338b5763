import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { preloadRuntimeConfig } from './app/provider';
import { preloadPageFor } from './app/router';
import './index.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html must contain <div id="root">');

/** How long the first render waits for the settings and the page's code before it shows the spinner. */
const FIRST_RENDER_WAIT_MS = 300;

// The settings (requested by index.html already) and the code of the page the app opens on load
// together; the first render waits for them, briefly, so that it is the page itself rather than a
// "Loading..." spinner that another full render replaces a moment later (each render of the whole
// app is a long task on a slow phone). A failure shows when the app renders, as before.
// docs/decisions/0020-web-delivery.md, "Update (issue 15, dashboard)".
const ready = Promise.allSettled([preloadRuntimeConfig(), preloadPageFor(window.location.pathname)]);
const waited = new Promise((resolve) => setTimeout(resolve, FIRST_RENDER_WAIT_MS));

void Promise.race([ready, waited]).then(() => {
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
