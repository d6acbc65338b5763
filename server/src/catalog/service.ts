// The public catalog: what anyone may find (live public apps), how it is searched, filtered, sorted
// and paged by an opaque keyset cursor, and each app's public page (inputs, plans, snippets) and
// OpenAPI document.
import {
  type AppInputs,
  CATALOG_DEFAULT_LIMIT,
  CATALOG_POPULAR_DAYS,
  type CatalogApp,
  type CatalogAppDetail,
  type CatalogField,
  type CatalogPage,
  type CatalogQuery,
  type CatalogSort,
  describePromptApp,
  describeWorkflowApp,
  frontendKindOfDifyMode,
  minorToMajor,
  perCallCard,
  type StoredDifyAppInfo,
} from '@tollbooth/contract';
import type { AppRow, AppsService } from '../apps/service.ts';
import type { Database } from '../db/client.ts';
import { createReadRouter, DEFAULT_READ_TIMEOUT_MS, type ReadRouter } from '../db/reads.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import type { PromptsService } from '../prompts/service.ts';
import { type AppOpenApiDocument, buildAppOpenApi } from './openapi.ts';
import { type CatalogRow, SORT_KEYS, selectActivePlans, selectCatalogApp, selectCatalogPage, selectWorkflowAppInfo } from './queries.ts';
import { appUrls, buildSnippets } from './snippets.ts';

export interface CatalogService {
  listApps(query: CatalogQuery): Promise<CatalogPage>;
  readApp(slug: string): Promise<CatalogAppDetail>;
  /** The owner sees any status; anyone else a live public or embed app (the apps' read rule). */
  openApiDocument(slug: string, viewerId: string | null): Promise<AppOpenApiDocument>;
  /** Any app's mode and input form (the embed widget's form), whatever its visibility: the caller decides who may see it. */
  describeAppForm(app: AppRow): Promise<{ mode: 'completion' | 'chat'; fields: CatalogField[]; textInput: string | null }>;
  /** The inputs of an app, by the same read rule as openApiDocument (embed apps are not in the catalog but may be called). */
  readInputs(slug: string, viewerId: string | null): Promise<AppInputs>;
}

const notFound = () => new AppError('not_found', 'Application not found');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_SEARCH_WORDS = 8;

/** A creator's public name: never an e-mail address, even if one was typed as a display name. */
export function publicCreatorName(name: string): string {
  const at = name.indexOf('@');
  return at >= 0 ? name.slice(0, at) || 'Creator' : name;
}

export function encodeCursor(sort: CatalogSort, values: (string | number)[]): string {
  return Buffer.from(JSON.stringify([sort, ...values])).toString('base64url');
}

/** The sort key values a cursor carries; 400 when it is malformed or was made for another sort. */
export function decodeCursor(sort: CatalogSort, cursor: string): (string | number)[] {
  const invalid = () => invalidParam('cursor', 'is not a cursor of this listing (start again without one)');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const columns = SORT_KEYS[sort].columns;
  if (!Array.isArray(decoded) || decoded[0] !== sort || decoded.length !== columns.length + 1) throw invalid();
  const values = decoded.slice(1) as unknown[];
  values.forEach((value, index) => {
    const ok = columns[index] === 'id' ? typeof value === 'string' && UUID.test(value) : Number.isSafeInteger(value);
    if (!ok) throw invalid();
  });
  return values as (string | number)[];
}

/** Whether a prompt app on the platform's keys is answered by the built-in demo model. */
export type IsDemoModel = (model: string) => boolean;

const answeredByDemo = (isDemoModel: IsDemoModel, app: { type: string; model: string | null; key_source: string | null }) =>
  app.type === 'prompt' && app.key_source !== 'own' && app.model !== null && isDemoModel(app.model);

const toItem = (row: CatalogRow, isDemoModel: IsDemoModel): CatalogApp => ({
  slug: row.slug,
  name: row.name,
  description: row.description,
  type: row.type,
  mode: row.mode,
  price_cents: row.price_cents,
  upcoming_price_cents: row.upcoming_price_cents,
  upcoming_price_at: row.upcoming_price_at?.toISOString() ?? null,
  pricing: row.pricing ?? perCallCard(Number(row.price_cents)),
  upcoming_pricing: row.upcoming_price_cents === null ? null : (row.upcoming_pricing ?? perCallCard(Number(row.upcoming_price_cents))),
  creator_name: publicCreatorName(row.creator_name),
  calls_30d: row.calls_30d,
  published_at: row.published_at.toISOString(),
  demo_model: answeredByDemo(isDemoModel, row),
});

/** The field a plain text fills in a completion app: `query` if it has one, else its first (required) text field. */
export function textInputOf(mode: 'completion' | 'chat', fields: CatalogField[]): string | null {
  if (mode === 'chat') return null;
  const texts = fields.filter((field) => field.control === 'text' || field.control === 'paragraph');
  return (texts.find((field) => field.name === 'query') ?? texts.find((field) => field.required) ?? texts[0])?.name ?? null;
}

export function createCatalogService({
  db,
  reads = createReadRouter({ primary: db, statementTimeoutMs: DEFAULT_READ_TIMEOUT_MS }),
  publicUrl,
  productName,
  apps,
  prompts,
  isDemoModel = () => false,
}: {
  db: Database;
  /** The public catalog's reads: the same for everyone, so from the replica when there is one (db/reads.ts). */
  reads?: ReadRouter;
  publicUrl: string;
  productName: string;
  apps: Pick<AppsService, 'findCallableApp'>;
  prompts: Pick<PromptsService, 'readActivePromptConfig'>;
  /** The model router's demo models (DEMO_MODEL on, provider not configured); none by default. */
  isDemoModel?: IsDemoModel;
}): CatalogService {
  /** An app's inputs as form fields, from its prompt's input schema or its Dify app's input form. */
  const describe = async (
    app: {
      id: string;
      slug: string;
      name: string;
      description: string;
      price_cents: number;
      type: 'prompt' | 'workflow';
      interaction_mode: 'completion' | 'chat';
    },
    appInfo: StoredDifyAppInfo | null,
  ) => {
    if (app.type === 'workflow') {
      const described = describeWorkflowApp(app, appInfo);
      return { mode: frontendKindOfDifyMode(appInfo?.mode), fields: described.fields };
    }
    const config = await prompts.readActivePromptConfig(app.id);
    const described = describePromptApp(app, config.active_version, app.interaction_mode);
    const demoModel = answeredByDemo(isDemoModel, { type: app.type, model: config.model, key_source: config.key_source });
    return { mode: app.interaction_mode, fields: described.fields, demoModel };
  };

  /** An app's inputs for anyone who may read it: the owner at any status, anyone else a live public or embed app. */
  const describeReadable = async (slug: string, viewerId: string | null) => {
    const app = await apps.findCallableApp(slug);
    if (!app) throw notFound();
    const visible = app.owner_id === viewerId || (app.status === 'live' && (app.visibility === 'public' || app.visibility === 'embed'));
    if (!visible) throw notFound();
    const appInfo = app.type === 'workflow' ? await selectWorkflowAppInfo(db, app.id) : null;
    return { app, ...(await describe(app, appInfo)) };
  };

  return {
    async listApps(query) {
      const sort = query.sort ?? 'popular';
      const limit = query.limit ?? CATALOG_DEFAULT_LIMIT;
      const words = (query.q ?? '').trim().split(/\s+/).filter(Boolean).slice(0, MAX_SEARCH_WORDS);
      // One row more than asked tells whether another page follows.
      const rows = await selectCatalogPage(reads.as(null), {
        words,
        type: query.type,
        mode: query.mode,
        price: query.price,
        maxPriceCents: query.max_price_cents,
        sort,
        after: query.cursor ? decodeCursor(sort, query.cursor) : null,
        limit: limit + 1,
        popularDays: CATALOG_POPULAR_DAYS,
      });
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      const last = page.at(-1);
      const nextCursor =
        hasMore && last
          ? encodeCursor(
              sort,
              SORT_KEYS[sort].columns.map((column) => last[column as keyof CatalogRow] as string | number),
            )
          : null;
      return { results: page.map((row) => toItem(row, isDemoModel)), has_more: hasMore, next_cursor: nextCursor };
    },

    async readApp(slug) {
      const publicReads = reads.as(null);
      const row = await selectCatalogApp(publicReads, slug, CATALOG_POPULAR_DAYS);
      if (!row) throw notFound();
      const { fields } = await describe({ ...row, interaction_mode: row.mode }, row.app_info);
      const textInput = textInputOf(row.mode, fields);
      const urls = appUrls(publicUrl, row.slug, row.mode);
      const plans = await selectActivePlans(publicReads, row.id);
      return {
        ...toItem(row, isDemoModel),
        fields,
        text_input: textInput,
        plans: plans.map((plan) => ({
          ...plan,
          included_usage_micros: Number(plan.included_usage_micros),
          price: minorToMajor(plan.price_cents, plan.currency),
        })),
        billing_path: `/applications/${row.slug}/billing`,
        endpoints: { call: urls.call, dify_base_url: urls.difyBaseUrl, openai_base_url: urls.openaiBaseUrl, openapi: urls.openapi },
        snippets: buildSnippets(publicUrl, { slug: row.slug, mode: row.mode, fields, textInput }),
      };
    },

    async describeAppForm(app) {
      const { mode, fields } = await describe(app, app.type === 'workflow' ? await selectWorkflowAppInfo(db, app.id) : null);
      return { mode, fields, textInput: textInputOf(mode, fields) };
    },

    async readInputs(slug, viewerId) {
      const { mode, fields, demoModel } = await describeReadable(slug, viewerId);
      return { mode, fields, text_input: textInputOf(mode, fields), demo_model: demoModel ?? false };
    },

    async openApiDocument(slug, viewerId) {
      const { app, mode, fields } = await describeReadable(slug, viewerId);
      return buildAppOpenApi(publicUrl, productName, {
        slug: app.slug,
        name: app.name,
        description: app.description,
        priceCents: app.price_cents,
        pricing: app.pricing ?? perCallCard(Number(app.price_cents)),
        mode,
        fields,
        textInput: textInputOf(mode, fields),
      });
    },
  };
}
