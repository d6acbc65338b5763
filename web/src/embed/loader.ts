// The one-line snippet's script, run on the host page:
//   <script src="https://tollbooth.example/embed/loader.js" data-app="slug" data-key="pk_…" async></script>
// data-mode="bubble" (default) adds a chat bubble in the corner that opens the widget; "inline"
// puts the widget's frame where the script tag is. data-theme: light (default) or dark. The frame
// runs on Tollbooth's origin, so the host page's scripts and cookies never touch it.
(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  if (!script) return;
  const { app, key, mode = 'bubble', theme = 'light', height = '560' } = script.dataset;
  if (!app || !key) {
    console.error('Tollbooth embed: the script needs data-app and data-key');
    return;
  }
  const origin = new URL(script.src).origin;
  const frame = document.createElement('iframe');
  frame.src = `${origin}/embed/${encodeURIComponent(app)}?key=${encodeURIComponent(key)}&theme=${theme === 'dark' ? 'dark' : 'light'}`;
  frame.title = 'Tollbooth widget';
  frame.setAttribute('allow', 'clipboard-write');
  const style = (element: HTMLElement, css: string) => element.setAttribute('style', css);
  const border = theme === 'dark' ? '#374151' : '#e5e7eb';

  if (mode === 'inline') {
    style(frame, `display:block;width:100%;height:${Number(height) || 560}px;border:1px solid ${border};border-radius:12px`);
    script.after(frame);
    return;
  }
  const panel = document.createElement('div');
  style(
    panel,
    `position:fixed;right:20px;bottom:88px;width:min(380px,calc(100vw - 40px));height:min(560px,calc(100vh - 120px));display:none;z-index:2147483647;border:1px solid ${border};border-radius:14px;overflow:hidden;box-shadow:0 12px 32px rgba(0,0,0,.25)`,
  );
  style(frame, 'width:100%;height:100%;border:0');
  panel.append(frame);
  const button = document.createElement('button');
  button.type = 'button';
  button.setAttribute('aria-label', 'Open chat');
  button.setAttribute('aria-expanded', 'false');
  // A speech bubble drawn inline: no emoji font or image request needed on the host page.
  button.innerHTML =
    '<svg width="28" height="28" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/></svg>';
  style(
    button,
    'position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;border:0;background:#4f46e5;color:#fff;display:flex;align-items:center;justify-content:center;cursor:pointer;z-index:2147483647;box-shadow:0 6px 16px rgba(0,0,0,.25)',
  );
  button.addEventListener('click', () => {
    const open = panel.style.display === 'none';
    panel.style.display = open ? 'block' : 'none';
    button.setAttribute('aria-expanded', String(open));
    button.setAttribute('aria-label', open ? 'Close chat' : 'Open chat');
  });
  document.body.append(panel, button);
})();
