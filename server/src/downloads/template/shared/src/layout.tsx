// The frame both apps share: the app's name, description and price, the theme switch, and the
// token usage and cost line shown after each call.
import { type ReactNode, useState } from 'react';
import { app, formatDollarsText, formatPrice } from './app-description';
import { currentTheme, setTheme, type Theme } from './theme';
import type { Usage } from './tollbooth';

function ThemeSwitch() {
  const [theme, setThemeState] = useState<Theme>(currentTheme);
  const next: Theme = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="button button-quiet"
      aria-label={`Switch to the ${next} theme`}
      onClick={() => {
        setTheme(next);
        setThemeState(next);
      }}
    >
      {theme === 'dark' ? 'Light theme' : 'Dark theme'}
    </button>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="header">
        <div className="container header-row">
          <div>
            <h1>{app.name}</h1>
            {app.description ? <p className="lead">{app.description}</p> : null}
          </div>
          <div className="header-side">
            <span className="price" title={`What a call costs: ${app.priceLines.join('; ')}`}>
              {app.price}
            </span>
            <ThemeSwitch />
          </div>
        </div>
      </header>
      <main id="main" className="container">
        {children}
      </main>
      <footer className="container footer">
        Powered by <a href="__TOLLBOOTH_URL__">Tollbooth</a> · endpoint <code>{app.slug}</code>
      </footer>
    </>
  );
}

/** "12 in · 30 out · 42 tokens · cost $0.25": the call's exact amount from its answer (issue 60: a per-token call costs what it used). */
export function UsageLine({ usage }: { usage: Usage | null }) {
  if (!usage) return null;
  return (
    <p className="usage">
      <span className="visually-hidden">Usage of this call:</span>
      <span>{usage.prompt_tokens ?? 0} in</span>
      <span>{usage.completion_tokens ?? 0} out</span>
      <span>{usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0)} tokens</span>
      <span>cost {usage.total_price === undefined ? formatPrice(app.priceCents) : formatDollarsText(usage.total_price)}</span>
    </p>
  );
}

export function ErrorMessage({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div className="error" role="alert">
      {message}
    </div>
  );
}
