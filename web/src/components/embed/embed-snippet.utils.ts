// The one-line embed snippet (server/src/embed/, web/src/embed/loader.ts).
export interface EmbedSnippetOptions {
  origin: string;
  slug: string;
  publishableKey: string;
  mode: 'bubble' | 'inline';
  theme: 'light' | 'dark';
}

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function buildEmbedSnippet({ origin, slug, publishableKey, mode, theme }: EmbedSnippetOptions): string {
  const extra = `${mode === 'inline' ? ' data-mode="inline"' : ''}${theme === 'dark' ? ' data-theme="dark"' : ''}`;
  return `<script src="${attribute(origin)}/embed/loader.js" data-app="${attribute(slug)}" data-key="${attribute(publishableKey)}"${extra} async></script>`;
}
