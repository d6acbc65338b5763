// The widget's styles: light and dark themes by the page's data-theme, sized for a frame from a
// 320 px chat bubble to a full-width inline block.
export const WIDGET_CSS = `
:root{--bg:#fff;--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--soft:#f3f4f6;--accent:#4f46e5;--on-accent:#fff;--error:#b91c1c;--error-bg:#fef2f2}
[data-theme=dark]{--bg:#111827;--fg:#f3f4f6;--muted:#9ca3af;--line:#374151;--soft:#1f2937;--accent:#818cf8;--on-accent:#111827;--error:#fca5a5;--error-bg:#3f1d1d}
*{box-sizing:border-box}
html,body{margin:0;height:100%;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
.widget{display:flex;flex-direction:column;height:100%}
header{display:flex;align-items:baseline;justify-content:space-between;gap:8px;padding:10px 14px;border-bottom:1px solid var(--line)}
h1{margin:0;font-size:15px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.price{flex:none;color:var(--muted);font-size:12px}
.hint{color:var(--muted);margin:0 0 8px}
.log{flex:1;overflow-y:auto;padding:12px 14px;display:flex;flex-direction:column;gap:8px}
.bubble{max-width:85%;padding:8px 11px;border-radius:14px;white-space:pre-wrap;word-wrap:break-word}
.user{align-self:flex-end;background:var(--accent);color:var(--on-accent);border-bottom-right-radius:4px}
.bot{align-self:flex-start;background:var(--soft);border-bottom-left-radius:4px}
.bot[aria-busy]:empty::after{content:"…"}
.error{color:var(--error);background:var(--error-bg);padding:8px 11px;border-radius:8px}
.composer{display:flex;flex-wrap:wrap;gap:8px;padding:10px 14px;border-top:1px solid var(--line)}
.composer textarea{flex:1;min-width:0;resize:none}
.composer details{flex-basis:100%}
.completion{overflow-y:auto}
.completion>.hint{padding:12px 14px 0}
.form{display:flex;flex-direction:column;gap:10px;padding:12px 14px}
.field{display:flex;flex-direction:column;gap:4px;font-weight:500}
.field.check{flex-direction:row-reverse;justify-content:flex-end;align-items:center;gap:8px}
textarea,input,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:7px 9px}
textarea:focus,input:focus,select:focus{outline:2px solid var(--accent);outline-offset:-1px}
button{font:inherit;font-weight:600;border:0;border-radius:8px;padding:7px 14px;background:var(--accent);color:var(--on-accent);cursor:pointer;align-self:flex-start}
button:disabled{opacity:.6;cursor:progress}
.output{margin:0 14px 14px;white-space:pre-wrap;word-wrap:break-word}
.output:not(:empty){padding:10px 12px;background:var(--soft);border-radius:8px}
`;
