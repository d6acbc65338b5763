// Server-rendered pages of the embedded provider: sign-in, sign-up, sign-out and errors. Plain
// HTML with inline CSS (no scripts except the sign-out auto-submit), so they work without the SPA.

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
html{color-scheme:light}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px 16px;
  font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#111827;background:#f3f4f6}
main{width:100%;max-width:400px}
.brand{display:flex;align-items:center;justify-content:center;gap:10px;margin:0 0 20px;font-size:22px;font-weight:700;
  letter-spacing:-.01em;color:#111827;text-decoration:none}
.brand svg{flex:none}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:12px;padding:28px 28px 24px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
h1{margin:0 0 6px;font-size:20px;line-height:1.3}
.lead{margin:0 0 20px;color:#4b5563;font-size:14px}
label{display:block;margin:14px 0 6px;font-size:14px;font-weight:600}
input{display:block;width:100%;padding:10px 12px;font:inherit;color:inherit;background:#fff;border:1px solid #d1d5db;border-radius:8px}
input:focus{outline:2px solid #4f46e5;outline-offset:1px;border-color:#4f46e5}
input[aria-invalid=true]{border-color:#b91c1c}
.hint{margin:6px 0 0;color:#6b7280;font-size:13px}
button{display:block;width:100%;margin-top:22px;padding:11px 16px;font:inherit;font-weight:600;color:#fff;background:#4f46e5;
  border:0;border-radius:8px;cursor:pointer}
button:hover{background:#4338ca}
button:focus-visible{outline:2px solid #111827;outline-offset:2px}
.error{margin:0 0 16px;padding:10px 12px;border:1px solid #fecaca;border-radius:8px;background:#fef2f2;color:#991b1b;font-size:14px}
.switch{margin:18px 0 0;text-align:center;font-size:14px;color:#4b5563}
a{color:#4338ca;font-weight:600}
a:focus-visible{outline:2px solid #4f46e5;outline-offset:2px}
`;

const LOGO = `<svg width="28" height="28" viewBox="0 0 28 28" aria-hidden="true" focusable="false">
<rect width="28" height="28" rx="7" fill="#4f46e5"/><path d="M7 10h14M14 10v11" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>`;

export interface PageOptions {
  title: string;
  productName: string;
  /** Link of the brand mark: the app's home page. */
  homeUrl: string;
  /** Trusted HTML of the card. */
  body: string;
  /** Trusted inline script, used only by the sign-out page. */
  script?: string;
}

export function renderPage({ title, productName, homeUrl, body, script }: PageOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · ${escapeHtml(productName)}</title>
<style>${STYLE}</style>
${script ? `<script>${script}</script>` : ''}
</head>
<body>
<main>
<a class="brand" href="${escapeHtml(homeUrl)}">${LOGO}<span>${escapeHtml(productName)}</span></a>
<div class="card">
${body}
</div>
</main>
</body>
</html>`;
}

interface FieldOptions {
  id: string;
  label: string;
  type: 'email' | 'password' | 'text';
  autocomplete: string;
  value?: string;
  invalid?: boolean;
  hint?: string;
  autofocus?: boolean;
  minLength?: number;
}

function field({ id, label, type, autocomplete, value, invalid, hint, autofocus, minLength }: FieldOptions): string {
  const describedBy = [hint ? `${id}-hint` : '', invalid ? 'form-error' : ''].filter(Boolean).join(' ');
  const attributes = [
    `id="${id}"`,
    `name="${id}"`,
    `type="${type}"`,
    `autocomplete="${autocomplete}"`,
    'required',
    value ? `value="${escapeHtml(value)}"` : '',
    minLength ? `minlength="${minLength}"` : '',
    invalid ? 'aria-invalid="true"' : '',
    describedBy ? `aria-describedby="${describedBy}"` : '',
    autofocus ? 'autofocus' : '',
    type === 'email' ? 'spellcheck="false" autocapitalize="off"' : '',
  ].filter(Boolean);
  return `<label for="${id}">${escapeHtml(label)}</label>
<input ${attributes.join(' ')}>${hint ? `\n<p class="hint" id="${id}-hint">${escapeHtml(hint)}</p>` : ''}`;
}

const errorBox = (message: string | undefined) => (message ? `<p class="error" id="form-error" role="alert">${escapeHtml(message)}</p>` : '');

export interface SignInView {
  action: string;
  signUpUrl: string;
  email?: string;
  error?: { field: 'email' | 'password'; message: string };
}

export function signInCard(view: SignInView): string {
  return `<h1>Sign in to your account</h1>
<p class="lead">Use your email and password.</p>
${errorBox(view.error?.message)}
<form method="post" action="${escapeHtml(view.action)}" novalidate>
${field({ id: 'email', label: 'Email', type: 'email', autocomplete: 'username', value: view.email, invalid: view.error?.field === 'email', autofocus: !view.email || view.error?.field === 'email' })}
${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', invalid: view.error?.field === 'password', autofocus: Boolean(view.email) && view.error?.field !== 'email' })}
<button type="submit">Sign in</button>
</form>
<p class="switch">New here? <a href="${escapeHtml(view.signUpUrl)}">Create an account</a></p>`;
}

export interface SignUpView {
  action: string;
  signInUrl: string;
  email?: string;
  displayName?: string;
  minPasswordLength: number;
  error?: { field: 'email' | 'password' | 'display_name'; message: string };
}

export function signUpCard(view: SignUpView): string {
  const invalid = view.error?.field;
  return `<h1>Create your account</h1>
<p class="lead">It takes a few seconds.</p>
${errorBox(view.error?.message)}
<form method="post" action="${escapeHtml(view.action)}" novalidate>
${field({ id: 'email', label: 'Email', type: 'email', autocomplete: 'email', value: view.email, invalid: invalid === 'email', autofocus: !invalid || invalid === 'email' })}
${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', invalid: invalid === 'password', hint: `At least ${view.minPasswordLength} characters and hard to guess: a few uncommon words work well.`, minLength: view.minPasswordLength, autofocus: invalid === 'password' })}
${field({ id: 'display_name', label: 'Display name', type: 'text', autocomplete: 'name', value: view.displayName, invalid: invalid === 'display_name', autofocus: invalid === 'display_name' })}
<button type="submit">Create account</button>
</form>
<p class="switch">Already have an account? <a href="${escapeHtml(view.signInUrl)}">Sign in</a></p>`;
}

export function messageCard(title: string, message: string, link?: { href: string; label: string }): string {
  return `<h1>${escapeHtml(title)}</h1>
<p class="lead">${escapeHtml(message)}</p>${link ? `\n<p class="switch"><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : ''}`;
}

/**
 * The sign-out confirmation around oidc-provider's form (which carries its xsrf token). With
 * autoSubmit the form posts itself, so a sign-out started by the app needs no extra click.
 */
export function signOutCard(providerForm: string, cancelUrl: string): string {
  // Put the "logout" field and the button inside the provider's form.
  const form = providerForm.replace('</form>', '<input type="hidden" name="logout" value="yes"><button type="submit">Sign out</button></form>');
  return `<h1>Sign out</h1>
<p class="lead">Sign out of your account on this device?</p>
${form}
<p class="switch"><a href="${escapeHtml(cancelUrl)}">Stay signed in</a></p>`;
}

export const AUTO_SUBMIT_SCRIPT = "document.addEventListener('DOMContentLoaded',function(){document.forms[0].submit()});";

/** What sign-up answers for every email when mail is configured (issue 24): it does not say which mail went out. */
export function checkEmailCard(email: string, signInUrl: string, linkValidHours: number): string {
  return `<h1>Check your email</h1>
<p class="lead">We sent a message to <strong>${escapeHtml(email)}</strong>. If the address is new here, it has a link to finish creating your account; if the address already has an account, it tells you how to sign in.</p>
<p class="hint">The link works for ${linkValidHours} hours. Nothing arrived? Check your spam folder, or sign up again.</p>
<p class="switch"><a href="${escapeHtml(signInUrl)}">Back to sign in</a></p>`;
}

export interface FinishSignUpView {
  action: string;
  token: string;
  email: string;
  error?: string;
}

/** The page of the mailed sign-up link: the password chosen on the form proves the visitor made this sign-up. */
export function finishSignUpCard(view: FinishSignUpView): string {
  return `<h1>Finish creating your account</h1>
<p class="lead">Enter the password you chose for <strong>${escapeHtml(view.email)}</strong>.</p>
${errorBox(view.error)}
<form method="post" action="${escapeHtml(view.action)}" novalidate>
<input type="hidden" name="token" value="${escapeHtml(view.token)}">
<input type="hidden" name="email" value="${escapeHtml(view.email)}" autocomplete="username">
${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', invalid: Boolean(view.error), autofocus: true })}
<button type="submit">Create account</button>
</form>`;
}
