// The sign-in and sign-up pages oidc-provider sends the browser to during an authorization
// request (its "interactions"). GET shows a form, POST checks it and either re-renders the form
// with the error (HTTP 200, fields kept) or finishes the interaction and redirects back to the
// provider, which continues to the app's callback.
//
// CSRF: a form is bound to its interaction by the uid in the URL and by oidc-provider's
// interaction cookie (SameSite=Lax, path-scoped to that uid), which a cross-site POST does not
// carry; a present Origin header must also be ours.
// For `schema.hide`: these pages are not part of the documented REST API.
import type {} from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../../platform/config.ts';
import { type AccountStore, checkSignUp, MESSAGES } from './accounts.ts';
import { type EmailVerifier, VERIFY_EMAIL_PATH } from './email-verification.ts';
import { checkEmailCard, finishSignUpCard, messageCard, renderPage, signInCard, signUpCard } from './pages.ts';
import { MIN_PASSWORD_LENGTH } from './password.ts';
import { FINISH_SIGN_UP_PATH, type PendingSignUps, SIGN_UP_LINK_VALID_HOURS } from './pending-sign-ups.ts';
import { createSignInGuard } from './sign-in-guard.ts';
import { createSignUpGuard } from './sign-up-guard.ts';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
type Screen = 'signin' | 'signup';

export interface InteractionRouteOptions {
  provider: Provider;
  accounts: AccountStore;
  config: Config;
  mountPath: string;
  /** Set when SMTP_URL is: the links of accounts that were mailed one before sign-up waited for mail. */
  emailVerifier: EmailVerifier | null;
  /** Set when SMTP_URL is: sign-up mails a link (new email) or a notice (taken email) and answers alike. */
  pendingSignUps: PendingSignUps | null;
  /** Grants what waited for a verified email (the sign-up credits). */
  onEmailVerified: (accountId: string) => Promise<void>;
  /** The sign-in and sign-up limits (index.ts keeps their counters in the database without Redis); else per process. */
  guards?: { signIn: ReturnType<typeof createSignInGuard>; signUp: ReturnType<typeof createSignUpGuard> };
}

const FORM_BODY_LIMIT = 16 * 1024;

// Our pages load nothing external and run no script; forbid framing (clickjacking on a login form).
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  // Not no-referrer: with it browsers send `Origin: null` on the form posts.
  'referrer-policy': 'same-origin',
} as const;

export async function interactionRoutes(
  app: FastifyInstance,
  { provider, accounts, config, mountPath, emailVerifier, pendingSignUps, onEmailVerified, guards }: InteractionRouteOptions,
) {
  const signInGuard = guards?.signIn ?? createSignInGuard({ redisUrl: config.redisUrl });
  const signUpGuard = guards?.signUp ?? createSignUpGuard({ redisUrl: config.redisUrl, ...config.signupLimits });
  app.addHook('onClose', async () => {
    await Promise.all([signInGuard.close(), signUpGuard.close(), pendingSignUps?.close()]);
  });
  // Only the forms below are parsed; everything else under the mount is left for the provider.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    done(null, new URLSearchParams(body as string));
  });

  const base = `${mountPath}/interaction`;
  const allowedOrigins = new Set([new URL(config.publicUrl).origin]);
  const page = (reply: FastifyReply, title: string, body: string, status = 200) =>
    reply
      .status(status)
      .headers(PAGE_HEADERS)
      .send(renderPage({ title, productName: config.productName, homeUrl: `${config.publicUrl}/`, body }));

  const urls = (uid: string) => ({
    signIn: `${base}/${encodeURIComponent(uid)}?screen=signin`,
    signUp: `${base}/${encodeURIComponent(uid)}?screen=signup`,
    signInAction: `${base}/${encodeURIComponent(uid)}/login`,
    signUpAction: `${base}/${encodeURIComponent(uid)}/signup`,
  });

  const renderSignIn = (
    reply: FastifyReply,
    uid: string,
    view: { email?: string; error?: { field: 'email' | 'password'; message: string } } = {},
    status?: number,
  ) => page(reply, 'Sign in', signInCard({ action: urls(uid).signInAction, signUpUrl: urls(uid).signUp, ...view }), status);

  const renderSignUp = (
    reply: FastifyReply,
    uid: string,
    view: { email?: string; displayName?: string; error?: { field: 'email' | 'password' | 'display_name'; message: string } } = {},
    status?: number,
  ) =>
    page(
      reply,
      'Create account',
      signUpCard({ action: urls(uid).signUpAction, signInUrl: urls(uid).signIn, minPasswordLength: MIN_PASSWORD_LENGTH, ...view }),
      status,
    );

  const renderExpired = (reply: FastifyReply) =>
    page(
      reply,
      'Sign-in expired',
      messageCard('This sign-in has expired', 'Your sign-in request is no longer valid. Start again from the app.', {
        href: `${config.publicUrl}/login`,
        label: 'Back to sign in',
      }),
      400,
    );

  /** The interaction of this browser for the uid in the URL, or null after answering with an error page. */
  async function loadInteraction(request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply): Promise<Interaction | null> {
    let interaction: Interaction;
    try {
      interaction = await provider.interactionDetails(request.raw, reply.raw);
    } catch (error) {
      request.log.info({ err: error }, 'oidc interaction not found');
      await renderExpired(reply);
      return null;
    }
    if (interaction.uid !== request.params.uid) {
      request.log.info('oidc interaction uid does not match its cookie');
      await renderExpired(reply);
      return null;
    }
    return interaction;
  }

  function checkOrigin(request: FastifyRequest, reply: FastifyReply): boolean {
    const origin = request.headers.origin;
    // "null" (privacy settings, sandboxed frames) says nothing; the interaction cookie still binds the form.
    if (origin === undefined || origin === 'null' || allowedOrigins.has(origin) || origin === `${request.protocol}://${request.host}`) return true;
    request.log.warn({ origin }, 'oidc form posted from a foreign origin');
    void page(reply, 'Request blocked', messageCard('Request blocked', 'This form was sent from another site.'), 403);
    return false;
  }

  /** Finishes the interaction as signed in and sends the browser back to the provider. */
  async function finishSignedIn(request: FastifyRequest, reply: FastifyReply, interaction: Interaction, accountId: string) {
    const prompts = String(interaction.params.prompt ?? '').split(' ');
    const returnTo = await provider.interactionResult(
      request.raw,
      reply.raw,
      // Resolving `create` too: a user sent to sign-up who signs in instead is done as well.
      { login: { accountId }, ...(prompts.includes('create') ? { create: {} } : {}) },
      { mergeWithLastSubmission: false },
    );
    return reply.redirect(returnTo, 303);
  }

  const form = (request: FastifyRequest) => (request.body instanceof URLSearchParams ? request.body : new URLSearchParams());

  app.get<{ Params: { uid: string }; Querystring: { screen?: string } }>(`${base}/:uid`, { schema: { hide: true } }, async (request, reply) => {
    const interaction = await loadInteraction(request, reply);
    if (!interaction) return reply;
    const { name } = interaction.prompt;
    if (name !== 'login' && name !== 'create') {
      // The only client is first-party and pre-granted, so consent (or anything else) means a
      // request we do not serve: answer it as denied rather than show a consent screen.
      request.log.warn({ prompt: name, reasons: interaction.prompt.reasons }, 'oidc interaction needs an unsupported prompt');
      const returnTo = await provider.interactionResult(
        request.raw,
        reply.raw,
        { error: 'access_denied', error_description: `${name} interaction is not supported` },
        { mergeWithLastSubmission: false },
      );
      return reply.redirect(returnTo, 303);
    }
    const requested = request.query.screen;
    const screen: Screen = requested === 'signup' || requested === 'signin' ? requested : name === 'create' ? 'signup' : 'signin';
    const loginHint = typeof interaction.params.login_hint === 'string' ? interaction.params.login_hint : undefined;
    return screen === 'signup' ? renderSignUp(reply, interaction.uid, { email: loginHint }) : renderSignIn(reply, interaction.uid, { email: loginHint });
  });

  app.post<{ Params: { uid: string } }>(`${base}/:uid/login`, { schema: { hide: true } }, async (request, reply) => {
    if (!checkOrigin(request, reply)) return reply;
    const interaction = await loadInteraction(request, reply);
    if (!interaction) return reply;
    const fields = form(request);
    const email = (fields.get('email') ?? '').trim();
    const password = fields.get('password') ?? '';
    if (!email || !password) {
      return renderSignIn(reply, interaction.uid, { email, error: { field: email ? 'password' : 'email', message: MESSAGES.missingCredentials } });
    }
    const gate = await signInGuard.enter(email, request.ip);
    if (gate.kind === 'address_blocked') {
      request.log.warn({ uid: interaction.uid }, 'oidc sign-in refused: too many failures from this address');
      return renderSignIn(reply, interaction.uid, { email, error: { field: 'password', message: MESSAGES.tooManyAttempts } }, 429);
    }
    const result = await accounts.signIn({ email, password });
    if (!result.ok) {
      await signInGuard.recordFailure(email, request.ip);
      request.log.info({ uid: interaction.uid, slowed: gate.kind === 'slowed' }, 'oidc sign-in failed');
      const message = gate.kind === 'slowed' ? `${MESSAGES.invalidCredentials} ${MESSAGES.slowedDown}` : MESSAGES.invalidCredentials;
      return renderSignIn(reply, interaction.uid, { email, error: { field: 'password', message } });
    }
    request.log.info({ uid: interaction.uid, accountId: result.account.id }, 'oidc sign-in succeeded');
    return finishSignedIn(request, reply, interaction, result.account.id);
  });

  app.post<{ Params: { uid: string } }>(`${base}/:uid/signup`, { schema: { hide: true } }, async (request, reply) => {
    if (!checkOrigin(request, reply)) return reply;
    const interaction = await loadInteraction(request, reply);
    if (!interaction) return reply;
    const fields = form(request);
    const email = (fields.get('email') ?? '').trim();
    const displayName = (fields.get('display_name') ?? '').trim();
    if (!(await signUpGuard.allowed(request.ip))) {
      request.log.warn({ uid: interaction.uid }, 'oidc sign-up refused: too many accounts created');
      return renderSignUp(reply, interaction.uid, { email, displayName, error: { field: 'email', message: MESSAGES.tooManySignUps } }, 429);
    }
    const password = fields.get('password') ?? '';
    if (pendingSignUps) {
      // With mail, every email gets the same steps and the same page (issue 24, decision 0038): a
      // new one is mailed the link that creates the account, a taken one a notice. Nobody is
      // signed in here, and every attempt counts against the address's sign-ups.
      const checked = checkSignUp({ email, password, displayName });
      if (!checked.ok) {
        request.log.info({ uid: interaction.uid, field: checked.field }, 'oidc sign-up rejected');
        return renderSignUp(reply, interaction.uid, { email, displayName, error: { field: checked.field, message: checked.message } });
      }
      await signUpGuard.recordSignUp(request.ip);
      await pendingSignUps.start({ email: checked.email, password, displayName: checked.displayName });
      request.log.info({ uid: interaction.uid }, 'oidc sign-up: mail queued');
      return page(reply, 'Check your email', checkEmailCard(checked.email, urls(interaction.uid).signIn, SIGN_UP_LINK_VALID_HOURS));
    }
    // Without mail there is no way to reach the email's owner; what stays visible is recorded in
    // decision 0038 and said at start-up.
    const result = await accounts.signUp({ email, password, displayName });
    if (!result.ok && result.message === MESSAGES.emailTaken) {
      // With that account's password the visitor is signed in, as a new account would be (through
      // the sign-in guard, so this is no way around its limits); otherwise one neutral message
      // after the same password work, and the attempt counts against the address's sign-ups, so
      // probing emails costs what creating accounts does (docs/decisions/0027).
      const gate = await signInGuard.enter(email, request.ip);
      if (gate.kind !== 'address_blocked') {
        const existing = await accounts.signIn({ email, password });
        if (existing.ok) {
          request.log.info({ uid: interaction.uid, accountId: existing.account.id }, 'oidc sign-up of an existing account: signed in');
          return finishSignedIn(request, reply, interaction, existing.account.id);
        }
        await signInGuard.recordFailure(email, request.ip);
      }
      await signUpGuard.recordSignUp(request.ip);
      request.log.info({ uid: interaction.uid }, 'oidc sign-up rejected');
      return renderSignUp(reply, interaction.uid, { email, displayName, error: { field: 'email', message: MESSAGES.signUpNotPossible } });
    }
    if (!result.ok) {
      request.log.info({ uid: interaction.uid, field: result.field }, 'oidc sign-up rejected');
      return renderSignUp(reply, interaction.uid, { email, displayName, error: { field: result.field, message: result.message } });
    }
    await signUpGuard.recordSignUp(request.ip);
    request.log.info({ uid: interaction.uid, accountId: result.account.id }, 'oidc account created');
    return finishSignedIn(request, reply, interaction, result.account.id);
  });

  const invalidLink = (reply: FastifyReply) =>
    page(
      reply,
      'Link not valid',
      messageCard('This link is not valid', 'It was already used, has expired, or was copied incompletely.', {
        href: `${config.publicUrl}/login`,
        label: 'Sign in',
      }),
      400,
    );

  const renderFinishSignUp = (reply: FastifyReply, token: string, email: string, error?: string) =>
    page(reply, 'Finish creating your account', finishSignUpCard({ action: FINISH_SIGN_UP_PATH, token, email, error }));

  // The mailed sign-up link: GET only shows the form (mail scanners that open links change
  // nothing); the POST with the password chosen at sign-up creates the account.
  app.get<{ Querystring: { token?: string } }>(FINISH_SIGN_UP_PATH, { schema: { hide: true } }, async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const email = pendingSignUps ? await pendingSignUps.emailOf(token) : null;
    if (!email) return invalidLink(reply);
    return renderFinishSignUp(reply, token, email);
  });

  app.post(FINISH_SIGN_UP_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!checkOrigin(request, reply)) return reply;
    const fields = form(request);
    const token = fields.get('token') ?? '';
    const result = pendingSignUps ? await pendingSignUps.finish(token, fields.get('password') ?? '') : { kind: 'invalid' as const };
    switch (result.kind) {
      case 'invalid':
        return invalidLink(reply);
      case 'wrong_password':
        request.log.info('oidc sign-up link: wrong password');
        return renderFinishSignUp(reply, token, result.email, MESSAGES.wrongSignUpPassword);
      case 'exists':
        return page(
          reply,
          'Sign in instead',
          messageCard('This email already has an account', 'Sign in with its email and password.', { href: `${config.publicUrl}/login`, label: 'Sign in' }),
        );
      case 'created':
        await onEmailVerified(result.accountId);
        request.log.info({ accountId: result.accountId }, 'oidc account created from its sign-up link');
        return page(
          reply,
          'Account created',
          messageCard('Your account is ready', 'Your email is confirmed. Sign in with your email and password to start.', {
            href: `${config.publicUrl}/login`,
            label: 'Sign in',
          }),
        );
    }
  });

  app.get<{ Querystring: { token?: string } }>(VERIFY_EMAIL_PATH, { schema: { hide: true } }, async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const accountId = emailVerifier && token ? await emailVerifier.verify(token) : null;
    if (!accountId) return invalidLink(reply);
    await onEmailVerified(accountId);
    request.log.info({ accountId }, 'oidc email verified');
    return page(
      reply,
      'Email confirmed',
      messageCard('Your email is confirmed', 'Your sign-up credits are now in your account.', {
        href: `${config.publicUrl}/dashboard`,
        label: 'Go to your dashboard',
      }),
    );
  });
}
