// Embedded OpenID Connect provider mounted at /oidc when no external issuer is configured.
//
// Mounting: oidc-provider is a Koa application. Requests under /oidc/* reach one catch-all
// Fastify route that hijacks the reply and hands the raw request to the provider's callback with
// the /oidc prefix stripped from req.url (req.originalUrl keeps the full path, from which the
// provider derives its mount path when it builds URLs). The route lives in an encapsulated
// plugin whose only content-type parser leaves request bodies unread, since the provider parses
// its own bodies. Our sign-in/sign-up pages are ordinary Fastify routes under
// /oidc/interaction/:uid in the same scope (more specific than the catch-all).
import type { IncomingMessage } from 'node:http';
// For `schema.hide`: the provider's routes are not part of the documented REST API.
import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { JSONWebKeySet } from 'jose';
import type { Database } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';
import { findOrCreateUser, grantSignupCreditsOnce, type UserAccounts } from '../users-service.ts';
import { createAccountStore } from './accounts.ts';
import { createEmailVerifier } from './email-verification.ts';
import { createGrantCheck } from './grant-check.ts';
import { interactionRoutes } from './interaction-routes.ts';
import { createPendingSignUps } from './pending-sign-ups.ts';
import { createPostgresAdapterFactory, deleteAccountPayloads, deleteExpiredPayloads } from './postgres-adapter.ts';
import { createProvider, OIDC_MOUNT_PATH } from './provider.ts';
import { createSignInGuard } from './sign-in-guard.ts';
import { createSignUpGuard } from './sign-up-guard.ts';
import { loadOrCreateSigningKeys } from './signing-keys.ts';

export interface EmbeddedOidc {
  /** Public signing keys, used by the API to verify access tokens without an HTTP round trip. */
  jwks: JSONWebKeySet;
  /** Ends every session and revokes every grant (refresh tokens) of an account. */
  revokeAccountSessions(accountId: string): Promise<void>;
  /** Whether an access token's grant still exists: sign-out and revocation destroy it. */
  isGrantActive(grantId: string): Promise<boolean>;
}

const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

export async function mountEmbeddedOidc(
  app: FastifyInstance,
  { config, db, userAccounts }: { config: Config; db: Database; userAccounts: UserAccounts },
): Promise<EmbeddedOidc> {
  const log = app.log.child({ module: 'oidc' });
  const signingKeys = await loadOrCreateSigningKeys(db, config.secretKey);
  const accounts = createAccountStore(db);
  const grants = createGrantCheck(db);
  const storage = createPostgresAdapterFactory(db);
  // A grant this process destroys (end-session, revocation) is refused at once, not after the cache age.
  const adapter = (model: string) => {
    const inner = storage(model);
    if (model !== 'Grant') return inner;
    return Object.assign(Object.create(inner) as typeof inner, {
      async destroy(id: string) {
        grants.forget(id);
        await inner.destroy(id);
      },
    });
  };
  const provider = createProvider({ config, accounts, signingKeys, adapter, log, grants });
  const handle = provider.callback();
  const publicUrl = new URL(config.publicUrl);
  const pendingSignUps = createPendingSignUps({ config, db, log });
  if (!pendingSignUps) {
    log.warn(
      'SMTP_URL is not set: sign-up creates accounts at once, so it can tell whether an email has an account (a taken email with another password is refused). Set SMTP_URL to make sign-up answer every email alike (docs/decisions/0038)',
    );
  }

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));

    await scope.register(interactionRoutes, {
      provider,
      accounts,
      config,
      mountPath: OIDC_MOUNT_PATH,
      // Without Redis the counters are in the database, so every process enforces one limit.
      guards: {
        signIn: createSignInGuard({ redisUrl: config.redisUrl, db }),
        signUp: createSignUpGuard({ redisUrl: config.redisUrl, db, ...config.signupLimits }),
      },
      emailVerifier: createEmailVerifier({ config, db }),
      pendingSignUps,
      // The sign-up credits that waited for the verified email.
      async onEmailVerified(accountId) {
        const account = await accounts.findById(accountId);
        if (!account) return;
        const user = await findOrCreateUser(
          db,
          { issuer: config.oidc.issuer, subject: account.id, email: account.email, name: account.displayName },
          config.signupCreditsCents,
          userAccounts,
        );
        await grantSignupCreditsOnce(db, user.id, config.signupCreditsCents, userAccounts);
      },
    });

    scope.route({
      method: ['GET', 'POST', 'OPTIONS'],
      url: `${OIDC_MOUNT_PATH}/*`,
      schema: { hide: true },
      // The provider answers with its own JSON and HTML, and logs through the events in provider.ts.
      handler: async (request, reply) => {
        reply.hijack();
        const raw = request.raw as IncomingMessage & { originalUrl?: string };
        const url = raw.url ?? OIDC_MOUNT_PATH;
        raw.originalUrl = url;
        raw.url = url.slice(OIDC_MOUNT_PATH.length) || '/';
        pinToPublicUrl(raw, publicUrl);
        try {
          await handle(raw, reply.raw);
        } catch (error) {
          request.log.error({ err: error }, 'oidc provider failed');
          if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'text/plain' });
          reply.raw.end();
        } finally {
          raw.url = url;
          delete raw.originalUrl;
        }
      },
    });
  });

  // Expired rows are already ignored by the adapter; this only keeps the table small.
  const cleanUp = () =>
    Promise.all([deleteExpiredPayloads(db), pendingSignUps?.deleteExpired() ?? 0]).then(
      ([payloads, signUps]) => payloads + signUps > 0 && log.debug({ payloads, signUps }, 'oidc expired rows removed'),
      (error: unknown) => log.warn({ err: error }, 'oidc expired rows cleanup failed'),
    );
  const timer = setInterval(cleanUp, CLEANUP_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  await cleanUp();

  log.info(
    { issuer: config.oidc.issuer, clientId: config.oidc.clientId, signingKeys: signingKeys.publicJwks.keys.map((key) => key.kid) },
    'embedded OIDC provider mounted',
  );

  return {
    jwks: signingKeys.publicJwks,
    async revokeAccountSessions(accountId) {
      const count = await deleteAccountPayloads(db, accountId);
      grants.forget();
      log.info({ accountId, count }, 'oidc sessions and grants revoked');
    },
    isGrantActive: (grantId) => grants.isActive(grantId),
  };
}

/**
 * The provider builds its issuer, endpoint URLs and cookie flags from the request (Koa, with
 * proxy on, reads X-Forwarded-Host and -Proto). Those must come from PUBLIC_URL alone, never from
 * a header any client can send, so the request it sees names PUBLIC_URL's host and protocol.
 */
function pinToPublicUrl(raw: IncomingMessage, publicUrl: URL) {
  for (const name of ['x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'forwarded']) delete raw.headers[name];
  raw.headers.host = publicUrl.host;
  raw.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
}
