// A test double of Stripe.js (the browser script loadStripe fetches from js.stripe.com), for
// browser tests: served in place of the real script, it gives `window.Stripe` the parts Tollbooth
// uses (elements with payment and address elements, confirmPayment, confirmSetup,
// retrievePaymentIntent, retrieveSetupIntent) and confirms against the Stripe fake exactly as
// Stripe.js confirms against Stripe: a form-encoded POST with the publishable key and the intent's
// client secret. The payment element is a plain card-number input (test cards: 4242…, 4000…9995,
// and 4000 0025 0000 3155, which needs 3-D Secure: the double then shows the test challenge).

/** The script's source, talking to the fake at `fakeUrl`. */
export function stripeJsDouble(fakeUrl: string): string {
  return `(() => {
  const API = ${JSON.stringify(fakeUrl)};
  function form(params) {
    const body = new URLSearchParams();
    const add = (prefix, value) => {
      if (value === undefined || value === null) return;
      if (typeof value === 'object') for (const [k, v] of Object.entries(value)) add(prefix ? prefix + '[' + k + ']' : k, v);
      else body.append(prefix, String(value));
    };
    add('', params);
    return body;
  }
  async function call(method, path, key, params) {
    const init = { method, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    let url = API + path;
    const body = form({ key, ...params });
    if (method === 'GET') url += '?' + body.toString(); else init.body = body.toString();
    const response = await fetch(url, init);
    const json = await response.json();
    return response.ok ? { ok: json } : { error: json.error };
  }
  function makeElement(type, options) {
    const handlers = {};
    const el = {
      _type: type,
      _root: null,
      mount(target) {
        const root = typeof target === 'string' ? document.querySelector(target) : target;
        el._root = root;
        if (type === 'payment') {
          root.innerHTML = '<label style="display:block;font-size:14px">Card number <input data-stripe-double="card-number" autocomplete="off" style="display:block;width:100%;border:1px solid #ccc;padding:6px" placeholder="4242 4242 4242 4242"></label>' +
            '<p data-stripe-double="methods" style="font-size:12px;color:#666">Payment methods: ' + ((options && options.paymentMethodOrder) || ['card']).join(', ') + '</p>';
        } else if (type === 'address') {
          const countries = (options && options.allowedCountries) || ['US'];
          root.innerHTML = '<label style="display:block;font-size:14px">Full name <input data-stripe-double="name" style="display:block;width:100%;border:1px solid #ccc;padding:6px"></label>' +
            '<label style="display:block;font-size:14px">Country <select data-stripe-double="country">' + countries.map((c) => '<option>' + c + '</option>').join('') + '</select></label>';
        } else {
          root.innerHTML = '<div data-stripe-double="' + type + '"></div>';
        }
        setTimeout(() => (handlers.ready || []).forEach((h) => h({ elementType: type })), 0);
      },
      on(event, handler) { (handlers[event] = handlers[event] || []).push(handler); return el; },
      off(event, handler) { handlers[event] = (handlers[event] || []).filter((h) => h !== handler); return el; },
      once(event, handler) { return el.on(event, handler); },
      update() {}, focus() {}, blur() {}, clear() {}, collapse() {},
      unmount() { if (el._root) el._root.innerHTML = ''; },
      destroy() { el.unmount(); },
    };
    return el;
  }
  function cardNumber(elements) {
    const payment = elements && elements._elements.find((e) => e._type === 'payment');
    const input = payment && payment._root && payment._root.querySelector('[data-stripe-double="card-number"]');
    return input ? input.value.replace(/\\s+/g, '') : '';
  }
  const idOf = (secret) => String(secret).split('_secret_')[0];
  // 3-D Secure: when a confirmation answers requires_action, Stripe.js shows the issuer's
  // challenge over the page and resolves only once the cardholder has answered it. The double
  // shows Stripe's test challenge (Complete / Fail authentication) and sends the answer to the
  // fake's challenge URL (next_action.use_stripe_sdk.stripe_js) with the client secret.
  function challenge(intent, secret) {
    return new Promise((resolve) => {
      const overlay = document.createElement('div');
      overlay.setAttribute('data-stripe-double', 'three-d-secure');
      overlay.setAttribute('role', 'dialog');
      overlay.setAttribute('aria-modal', 'true');
      overlay.setAttribute('aria-label', '3D Secure authentication');
      overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.55);display:flex;align-items:center;justify-content:center;font-family:sans-serif';
      overlay.innerHTML = '<div style="background:#fff;padding:24px;border-radius:8px;max-width:380px;box-shadow:0 10px 30px rgba(0,0,0,.3)">' +
        '<h2 style="font-size:18px;margin:0 0 8px">3D Secure 2 Test Page</h2>' +
        '<p style="font-size:14px;margin:0 0 16px;color:#444">Your bank asks you to confirm this payment of ' + (intent.amount !== undefined ? (intent.amount / 100).toFixed(2) + ' ' + String(intent.currency || '').toUpperCase() : 'this card') + '.</p>' +
        '<button type="button" data-outcome="complete" style="background:#635bff;color:#fff;border:0;padding:8px 14px;border-radius:4px;margin-right:8px">Complete authentication</button>' +
        '<button type="button" data-outcome="fail" style="background:#fff;color:#333;border:1px solid #ccc;padding:8px 14px;border-radius:4px">Fail authentication</button></div>';
      for (const button of overlay.querySelectorAll('button')) {
        button.addEventListener('click', async () => {
          overlay.remove();
          const url = intent.next_action && intent.next_action.use_stripe_sdk && intent.next_action.use_stripe_sdk.stripe_js;
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form({ key: currentKey, client_secret: secret, outcome: button.getAttribute('data-outcome') }).toString(),
          });
          const json = await response.json();
          resolve(response.ok ? { ok: json } : { error: json.error });
        });
      }
      document.body.appendChild(overlay);
    });
  }
  let currentKey = '';
  /** A confirmation's answer as Stripe.js resolves it, after any 3-D Secure challenge. */
  async function settle(answer, secret, kind) {
    if (answer.error) return { error: answer.error };
    let intent = answer.ok;
    if (intent.status === 'requires_action') {
      const challenged = await challenge(intent, secret);
      if (challenged.error) return { error: challenged.error };
      intent = challenged.ok;
    }
    const lastError = kind === 'paymentIntent' ? intent.last_payment_error : intent.last_setup_error;
    if (intent.status === 'requires_payment_method' && lastError) return { error: { ...lastError, [kind === 'paymentIntent' ? 'payment_intent' : 'setup_intent']: intent } };
    return { [kind]: intent };
  }
  window.Stripe = function Stripe(key) {
    currentKey = key;
    const stripe = {
      _registerWrapper() {}, registerAppInfo() {},
      elements(options) {
        const group = {
          _options: options || {},
          _elements: [],
          create(type, opts) { const el = makeElement(type, opts); group._elements.push(el); return el; },
          getElement(type) { return group._elements.find((e) => e._type === type) || null; },
          update(opts) { Object.assign(group._options, opts); },
          fetchUpdates() { return Promise.resolve({}); },
          submit() { return Promise.resolve({}); },
          on() {}, off() {},
        };
        return group;
      },
      async confirmPayment({ elements, clientSecret }) {
        const secret = clientSecret || elements._options.clientSecret;
        const number = cardNumber(elements);
        if (!number) return { error: { type: 'validation_error', message: 'Your card number is incomplete.' } };
        const answer = await call('POST', '/v1/payment_intents/' + idOf(secret) + '/confirm', key, { client_secret: secret, payment_method_data: { type: 'card', card: { number } } });
        return settle(answer, secret, 'paymentIntent');
      },
      async confirmSetup({ elements, clientSecret }) {
        const secret = clientSecret || elements._options.clientSecret;
        const number = cardNumber(elements);
        if (!number) return { error: { type: 'validation_error', message: 'Your card number is incomplete.' } };
        const answer = await call('POST', '/v1/setup_intents/' + idOf(secret) + '/confirm', key, { client_secret: secret, payment_method_data: { type: 'card', card: { number } } });
        return settle(answer, secret, 'setupIntent');
      },
      async retrievePaymentIntent(secret) {
        const answer = await call('GET', '/v1/payment_intents/' + idOf(secret), key, { client_secret: secret });
        return answer.error ? { error: answer.error } : { paymentIntent: answer.ok };
      },
      async retrieveSetupIntent(secret) {
        const answer = await call('GET', '/v1/setup_intents/' + idOf(secret), key, { client_secret: secret });
        return answer.error ? { error: answer.error } : { setupIntent: answer.ok };
      },
      createToken() {}, createPaymentMethod() {}, confirmCardPayment() {},
    };
    return stripe;
  };
  window.Stripe.version = 3;
})();`;
}
