// Application rules: creation with the spec's defaults and slug rule, owner-only changes (anyone
// else gets the same 404 as for a missing app), public views of live public/embed apps, and
// soft deletion that keeps money and invocation history and never frees the slug.
import {
  type Application,
  type ApplicationCreate,
  type ApplicationUpdate,
  type AppStatusValue,
  DEFAULT_DIFY_BASE_URL,
  DEFAULT_PRICE_CENTS,
  firstFreeSlug,
  type RateCard,
  slugify,
} from '@tollbooth/contract';
import { decryptSecret, encryptSecret, maskSecret } from '../crypto/secrets.ts';
import type { Database, Queryable } from '../db/client.ts';
import { createReadRouter, DEFAULT_READ_TIMEOUT_MS, type Reader, type ReadRouter } from '../db/reads.ts';
import { mapPage, type Page, type PageRequest } from '../http/pagination.ts';
import type { Config } from '../platform/config.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import { checkProviderUrl } from '../providers/workflows/safe-http.ts';
import { recordWebhookEvent } from '../webhooks/outbox-service.ts';
import { planPriceChange } from './price-changes.ts';
import { cardOf, costsMore, type StoredPrice, storedPrice } from './pricing.ts';
import {
  type AppRow,
  insertApp,
  type NewApp,
  selectAppBySlug,
  selectAppsByOwner,
  selectPriceNoticeAudience,
  selectTakenSlugs,
  softDeleteApp,
} from './queries.ts';

/** An application's row, as the other features that read apps (gateway, billing, downloads…) receive it. */
export type { AppRow, PricedAppColumns } from './queries.ts';

export const appNotFound = () => new AppError('not_found', 'Application not found');

/** Hooks run inside the transaction that duplicates an app, so features can copy their own configuration. */
export type CopyAppConfiguration = (tx: Parameters<Parameters<Database['transaction']>[0]>[0], fromAppId: string, toAppId: string) => Promise<void>;

export interface AppsService {
  /** A page of the owner's applications, newest first. */
  /** The owner's apps, a page at a time: from the replica once it has the owner's last change (db/reads.ts). */
  listOwnApps(owner: Reader, page: PageRequest): Promise<Page<Application>>;
  createApp(ownerId: string, input: ApplicationCreate): Promise<Application>;
  readApp(slug: string, viewerId: string | null): Promise<Application>;
  findOwnedApp(slug: string, ownerId: string): Promise<AppRow>;
  /** Any app that exists (not deleted), for the gateway to apply its own access rules. */
  findCallableApp(slug: string): Promise<AppRow | null>;
  updateApp(slug: string, ownerId: string, input: ApplicationUpdate): Promise<Application>;
  updateStatus(slug: string, ownerId: string, status: AppStatusValue): Promise<Application>;
  deleteApp(slug: string, ownerId: string): Promise<void>;
  duplicateApp(slug: string, ownerId: string): Promise<Application>;
  /** The workflow provider API key in clear, for the gateway. */
  revealProviderSecret(app: AppRow): string | null;
}

/** Hooks run inside the transaction that creates an app, so features can give it a starting configuration. */
const sameCard = (a: RateCard | null, b: RateCard | null) => JSON.stringify(a) === JSON.stringify(b);

export type InitAppConfiguration = (
  tx: Parameters<Parameters<Database['transaction']>[0]>[0],
  app: { id: string; type: 'prompt' | 'workflow' },
) => Promise<void>;

export function createAppsService({
  db,
  reads = createReadRouter({ primary: db, statementTimeoutMs: DEFAULT_READ_TIMEOUT_MS }),
  config,
  createHooks = [],
  copyHooks = [],
  providerConfigHooks = [],
  onChange = () => {},
}: {
  db: Database;
  /** List reads under the statement timeout, on the replica when it has the reader's last change. */
  reads?: ReadRouter;
  config: Config;
  createHooks?: InitAppConfiguration[];
  copyHooks?: CopyAppConfiguration[];
  /** Run in the transaction that changed a workflow app's provider settings (the workflow feature versions them). */
  providerConfigHooks?: ((tx: Parameters<Parameters<Database['transaction']>[0]>[0], appId: string) => Promise<void>)[];
  /** Told after an app changed or was deleted (caches forget it). */
  onChange?: (slug: string, appId: string) => void;
}): AppsService {
  const toView = (row: AppRow, viewerId: string | null): Application => {
    const isOwner = viewerId === row.owner_id;
    const view: Application = {
      id: row.id,
      name: row.name,
      slug: row.slug,
      description: row.description,
      type: row.type,
      interaction_mode: row.interaction_mode,
      call_mode: row.call_mode ?? row.interaction_mode,
      visibility: row.visibility,
      status: row.status,
      price_cents: row.price_cents,
      upcoming_price_cents: row.upcoming_price_cents,
      upcoming_price_at: row.upcoming_price_at?.toISOString() ?? null,
      pricing: cardOf(row.price_cents, row.pricing),
      upcoming_pricing: row.upcoming_price_cents === null ? null : cardOf(row.upcoming_price_cents, row.upcoming_pricing),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      creator_name: row.creator_name,
      is_owner: isOwner,
      caller_tools: row.caller_tools,
    };
    if (isOwner && row.type === 'workflow') {
      const secret = revealProviderSecret(row);
      view.provider_config = {
        app_id: row.provider_config.app_id ?? '',
        api_key: secret ? maskSecret(secret) : '',
        base_url: row.provider_config.base_url ?? DEFAULT_DIFY_BASE_URL,
      };
    }
    return view;
  };

  const revealProviderSecret = (row: AppRow) => (row.provider_secret_sealed ? decryptSecret(config.secretKey, row.provider_secret_sealed) : null);

  const findOwnedApp = async (slug: string, ownerId: string) => {
    const row = await selectAppBySlug(db, slug);
    if (!row || row.owner_id !== ownerId) throw appNotFound();
    return row;
  };

  const reread = async (slug: string, ownerId: string) => toView(await findOwnedApp(slug, ownerId), ownerId);

  /**
   * Inserts with the first free slug. Creations from one base slug queue on an advisory lock, so
   * they pick -2, -3… in turn; a rarer clash across bases ("a" taking "a-2" while "a 2" wants it)
   * makes us try the next free one.
   */
  const insertWithFreeSlug = async (tx: Parameters<Parameters<Database['transaction']>[0]>[0], app: Omit<NewApp, 'slug'>, base: string) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('app-slug:' || $1))", [base]);
    for (let attempt = 0; attempt < 5; attempt++) {
      const slug = firstFreeSlug(base, await selectTakenSlugs(tx, base));
      await tx.query('SAVEPOINT insert_app');
      try {
        const id = await insertApp(tx, { ...app, slug });
        await tx.query('RELEASE SAVEPOINT insert_app');
        return { id, slug };
      } catch (error) {
        await tx.query('ROLLBACK TO SAVEPOINT insert_app');
        if ((error as { code?: string }).code !== '23505') throw error;
      }
    }
    throw new AppError('conflict', 'Could not find a free slug, please try again');
  };

  /** Well formed, and (the SSRF rule) not reaching a private or loopback address. */
  const validateBaseUrl = async (value: string | undefined, field: string) => {
    if (value === undefined || value === '') return DEFAULT_DIFY_BASE_URL;
    const url = await checkProviderUrl(value, config.allowPrivateProviderUrls, field);
    return url.href.replace(/\/+$/, '');
  };

  return {
    revealProviderSecret,
    findOwnedApp,
    findCallableApp: (slug) => selectAppBySlug(db, slug),

    async listOwnApps(owner, page) {
      return mapPage(await selectAppsByOwner(reads.as(owner), owner.id, page), (row) => toView(row, owner.id));
    },

    async createApp(ownerId, input) {
      const name = input.name.trim();
      if (!name) throw invalidParam('name', 'is required');
      let providerConfig: Record<string, string> = {};
      let providerSecretSealed: string | null = null;
      if (input.type === 'workflow') {
        const appId = input.provider_config?.app_id?.trim();
        const apiKey = input.provider_config?.api_key?.trim();
        if (!appId) throw invalidParam('provider_config.app_id', 'is required for workflow applications');
        if (!apiKey) throw invalidParam('provider_config.api_key', 'is required for workflow applications');
        providerConfig = { app_id: appId, base_url: await validateBaseUrl(input.provider_config?.base_url, 'provider_config.base_url') };
        providerSecretSealed = encryptSecret(config.secretKey, apiKey);
      } else if (input.provider_config) {
        throw invalidParam('provider_config', 'is only for workflow applications');
      }
      if (input.pricing && input.price_cents !== undefined) throw invalidParam('price_cents', 'send either price_cents or pricing, not both');
      const price = input.pricing
        ? storedPrice(input.pricing, input.type, config.priceLimitMicros)
        : { priceCents: input.price_cents ?? DEFAULT_PRICE_CENTS, pricing: null };
      const { slug } = await db.transaction(async (tx) => {
        const created = await insertWithFreeSlug(
          tx,
          {
            ownerId,
            name,
            description: input.description?.trim() ?? '',
            type: input.type,
            interactionMode: input.interaction_mode ?? 'completion',
            visibility: input.visibility ?? 'private',
            status: 'draft',
            priceCents: price.priceCents,
            pricing: price.pricing,
            providerConfig,
            providerSecretSealed,
          },
          slugify(name),
        );
        for (const init of createHooks) await init(tx, { id: created.id, type: input.type });
        return created;
      });
      return reread(slug, ownerId);
    },

    async readApp(slug, viewerId) {
      const row = await selectAppBySlug(db, slug);
      if (!row) throw appNotFound();
      if (row.owner_id === viewerId) return toView(row, viewerId);
      if (row.status === 'live' && (row.visibility === 'public' || row.visibility === 'embed')) return toView(row, viewerId);
      throw appNotFound();
    },

    async updateApp(slug, ownerId, input) {
      const row = await findOwnedApp(slug, ownerId);
      if (input.slug !== undefined && input.slug !== row.slug) throw invalidParam('slug', 'cannot be changed after creation');
      if (input.interaction_mode !== undefined && row.type !== 'prompt') throw invalidParam('interaction_mode', 'applies to prompt applications only');
      if (input.provider_config !== undefined && row.type !== 'workflow') throw invalidParam('provider_config', 'is only for workflow applications');
      const name = input.name?.trim();
      if (input.name !== undefined && !name) throw invalidParam('name', 'is required');
      let providerConfig: Record<string, string> | null = null;
      let sealed: string | null = null;
      if (input.provider_config) {
        const appId = input.provider_config.app_id?.trim();
        if (input.provider_config.app_id !== undefined && !appId) throw invalidParam('provider_config.app_id', 'is required for workflow applications');
        providerConfig = {
          app_id: appId ?? row.provider_config.app_id ?? '',
          base_url:
            input.provider_config.base_url !== undefined
              ? await validateBaseUrl(input.provider_config.base_url, 'provider_config.base_url')
              : (row.provider_config.base_url ?? DEFAULT_DIFY_BASE_URL),
        };
        const apiKey = input.provider_config.api_key?.trim();
        // The masked value the API handed out comes back unchanged from edit forms: keep the stored key.
        if (apiKey && !apiKey.startsWith('••••')) sealed = encryptSecret(config.secretKey, apiKey);
        else if (apiKey === '') throw invalidParam('provider_config.api_key', 'is required for workflow applications');
      }
      if (input.pricing && input.price_cents !== undefined) throw invalidParam('price_cents', 'send either price_cents or pricing, not both');
      const requested: StoredPrice | null = input.pricing
        ? storedPrice(input.pricing, row.type, config.priceLimitMicros)
        : input.price_cents !== undefined
          ? { priceCents: input.price_cents, pricing: null }
          : null;
      const current = { priceCents: Number(row.price_cents), pricing: row.pricing };
      const increase = requested !== null && costsMore(cardOf(current.priceCents, current.pricing), cardOf(requested.priceCents, requested.pricing));
      // An increase of a live app asks who it would reach: nobody but the owner, and it applies at once.
      const audience =
        increase && row.went_live_at !== null && config.priceIncreaseNoticeDays > 0
          ? await selectPriceNoticeAudience(db, row.id, ownerId, config.priceIncreaseNoticeDays)
          : null;
      const price =
        requested === null
          ? null
          : planPriceChange(
              { ...current, wentLiveAt: row.went_live_at },
              requested,
              increase,
              config.priceIncreaseNoticeDays,
              new Date(),
              audience === null || audience.calls > 0 || audience.subscribers > 0,
            );
      const runUpdate = (q: Queryable) =>
        q.query(
          `UPDATE apps SET
           name = coalesce($2, name),
           description = coalesce($3, description),
           visibility = coalesce($4, visibility),
           status = coalesce($5, status),
           went_live_at = coalesce(went_live_at, CASE WHEN $5 = 'live' THEN now() END),
           price_cents = CASE WHEN $6::bigint IS NULL THEN price_cents ELSE $6 END,
           upcoming_price_cents = CASE WHEN $6::bigint IS NULL THEN upcoming_price_cents ELSE $10 END,
           upcoming_price_at = CASE WHEN $6::bigint IS NULL THEN upcoming_price_at ELSE $11 END,
           pricing = CASE WHEN $6::bigint IS NULL THEN pricing ELSE $13::jsonb END,
           upcoming_pricing = CASE WHEN $6::bigint IS NULL THEN upcoming_pricing ELSE $14::jsonb END,
           interaction_mode = coalesce($7, interaction_mode),
           provider_config = coalesce($8::jsonb, provider_config),
           provider_secret_sealed = coalesce($9, provider_secret_sealed),
           caller_tools = coalesce($12, caller_tools),
           updated_at = now()
         WHERE id = $1`,
          [
            row.id,
            name ?? null,
            input.description?.trim() ?? null,
            input.visibility ?? null,
            input.status ?? null,
            price?.priceCents ?? null,
            input.interaction_mode ?? null,
            providerConfig ? JSON.stringify(providerConfig) : null,
            sealed,
            price?.upcomingPriceCents ?? null,
            price?.upcomingPriceAt ?? null,
            input.caller_tools ?? null,
            price?.pricing ? JSON.stringify(price.pricing) : null,
            price?.upcomingPricing ? JSON.stringify(price.upcomingPricing) : null,
          ],
        );
      // price.changed (webhooks/outbox-service.ts) to the app's subscribers and callers, with the change, in its transaction.
      const priceChanged =
        price !== null && row.went_live_at !== null && (price.priceCents !== Number(row.price_cents) || !sameCard(price.pricing, row.pricing));
      const upcomingChanged =
        price !== null &&
        row.went_live_at !== null &&
        price.upcomingPriceCents !== null &&
        (price.upcomingPriceCents !== Number(row.upcoming_price_cents) || !sameCard(price.upcomingPricing, row.upcoming_pricing));
      if (providerConfig || sealed || priceChanged || upcomingChanged) {
        await db.transaction(async (tx) => {
          await runUpdate(tx);
          for (const hook of providerConfigHooks) if (providerConfig || sealed) await hook(tx, row.id);
          if (price && (priceChanged || upcomingChanged)) {
            await recordWebhookEvent(tx, {
              type: 'price.changed',
              audienceAppId: row.id,
              data: {
                app_id: row.id,
                slug: row.slug,
                old_price_cents: Number(row.price_cents),
                new_price_cents: price.upcomingPriceCents ?? price.priceCents,
                old_pricing: cardOf(Number(row.price_cents), row.pricing),
                new_pricing: cardOf(price.upcomingPriceCents ?? price.priceCents, price.upcomingPriceAt ? price.upcomingPricing : price.pricing),
                effective_at: (price.upcomingPriceAt ?? new Date()).toISOString(),
              },
            });
          }
        });
      } else await runUpdate(db);
      onChange(slug, row.id);
      const view = await reread(slug, ownerId);
      if (audience && price?.upcomingPriceAt) {
        const typical = audience.typicalModelCostMicros;
        view.price_notice = {
          applies_at: price.upcomingPriceAt.toISOString(),
          notice_days: config.priceIncreaseNoticeDays,
          calls_last_period: audience.calls,
          subscribers: audience.subscribers,
          typical_model_cost_micros: typical,
          loss_until_then_micros: typical === null ? null : Math.max(0, typical - price.priceCents * 10_000) * audience.calls,
        };
      }
      return view;
    },

    async updateStatus(slug, ownerId, status) {
      const row = await findOwnedApp(slug, ownerId);
      await db.query(
        "UPDATE apps SET status = $2, went_live_at = coalesce(went_live_at, CASE WHEN $2 = 'live' THEN now() END), updated_at = now() WHERE id = $1",
        [row.id, status],
      );
      onChange(slug, row.id);
      return reread(slug, ownerId);
    },

    async deleteApp(slug, ownerId) {
      const row = await findOwnedApp(slug, ownerId);
      await softDeleteApp(db, row.id);
      onChange(slug, row.id);
    },

    async duplicateApp(slug, ownerId) {
      const row = await findOwnedApp(slug, ownerId);
      const name = `${row.name} copy`.slice(0, 100);
      const { slug: newSlug } = await db.transaction(async (tx) => {
        const created = await insertWithFreeSlug(
          tx,
          {
            ownerId,
            name,
            description: row.description,
            type: row.type,
            interactionMode: row.interaction_mode,
            visibility: row.visibility,
            status: 'draft',
            pricing: row.pricing,
            priceCents: row.price_cents,
            providerConfig: row.provider_config as Record<string, string>,
            providerSecretSealed: row.provider_secret_sealed,
          },
          slugify(name),
        );
        for (const copy of copyHooks) await copy(tx, row.id, created.id);
        return created;
      });
      return reread(newSlug, ownerId);
    },
  };
}
