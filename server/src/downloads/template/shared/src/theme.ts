// Light and dark themes: the system's choice until the user picks one, then theirs (remembered).
export type Theme = 'light' | 'dark';

const STORAGE_KEY = 'theme';

export function systemTheme(): Theme {
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function currentTheme(): Theme {
  const stored = localStorage.getItem(STORAGE_KEY);
  return stored === 'light' || stored === 'dark' ? stored : systemTheme();
}

export function setTheme(theme: Theme) {
  localStorage.setItem(STORAGE_KEY, theme);
  document.documentElement.dataset.theme = theme;
}

export function applyStoredTheme() {
  document.documentElement.dataset.theme = currentTheme();
}
