// A test double of Stripe.js (the browser script loadStripe fetches from js.stripe.com), for
// browser tests: served in place of the real script, it gives `window.Stripe` the parts Tollbooth
// uses (elements with payment and address elements, confirmPayment, confirmSetup,
// retrievePaymentIntent, retrieveSetupIntent) and confirms against the Stripe fake exactly as
// Stripe.js confirms against Stripe: a form-encoded POST with the publishable key and the intent's
// client secret. The payment element is a plain card-number input (test cards: 4242…, 4000…9995).

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
  window.Stripe = function Stripe(key) {
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
        return answer.error ? { error: answer.error } : { paymentIntent: answer.ok };
      },
      async confirmSetup({ elements, clientSecret }) {
        const secret = clientSecret || elements._options.clientSecret;
        const number = cardNumber(elements);
        if (!number) return { error: { type: 'validation_error', message: 'Your card number is incomplete.' } };
        const answer = await call('POST', '/v1/setup_intents/' + idOf(secret) + '/confirm', key, { client_secret: secret, payment_method_data: { type: 'card', card: { number } } });
        return answer.error ? { error: answer.error } : { setupIntent: answer.ok };
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
