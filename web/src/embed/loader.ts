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
  const style = (element: HTMLElement, css: string) => element.setAttribute('style', css);
  // Issue 61: ask before drawing anything whether this page's origin is one of the key's websites.
  // Refused, the site owner reads why in the console and the visitor sees a quiet note, never a
  // bubble that opens onto a broken frame. Unreachable, the frame is drawn and shows its own notice.
  const appPath = encodeURIComponent(app);
  const keyParam = encodeURIComponent(key);
  const check = `${origin}/embed/${appPath}/check?key=${keyParam}&origin=${encodeURIComponent(location.origin)}`;
  fetch(check, { credentials: 'omit' })
    .then((response) => (response.ok ? response.json() : null))
    .catch(() => null)
    .then((answer: { allowed: boolean; message: string; hints: string[] } | null) => {
      if (!answer || answer.allowed) draw();
      else refuse(answer.message, answer.hints ?? []);
    });

  function refuse(message: string, hints: string[]) {
    console.error(`Tollbooth embed: ${message}${hints.map((hint) => `\n  - ${hint}`).join('')}`);
    const note = document.createElement('p');
    note.setAttribute('data-tollbooth-embed', 'refused');
    note.setAttribute('role', 'note');
    note.textContent = 'This site is not allowed for this key';
    const quiet = 'margin:0;font:12px/1.4 system-ui,sans-serif;color:#6b7280;';
    if (mode === 'inline') {
      style(note, `${quiet}padding:8px 12px;border:1px dashed #d1d5db;border-radius:8px`);
      script!.after(note);
    } else {
      style(note, `${quiet}position:fixed;right:20px;bottom:20px;padding:4px 8px;background:rgba(255,255,255,.9);border-radius:6px;z-index:2147483647`);
      document.body.append(note);
    }
  }

  function draw() {
    const frame = document.createElement('iframe');
    frame.src = `${origin}/embed/${appPath}?key=${keyParam}&theme=${theme === 'dark' ? 'dark' : 'light'}`;
    frame.title = 'Tollbooth widget';
    frame.setAttribute('allow', 'clipboard-write');
    const border = theme === 'dark' ? '#374151' : '#e5e7eb';

    if (mode === 'inline') {
      style(frame, `display:block;width:100%;height:${Number(height) || 560}px;border:1px solid ${border};border-radius:12px`);
      script!.after(frame);
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
  }
})();
