// A test app whose workflow apps wrap the Dify fake on loopback (private provider URLs allowed, as
// the fake is on this machine).
import { afterAll, beforeEach } from 'vitest';
import { closingWith, createPaidTestContext, createTestContext, type PaidTestContext, type TestContext, type TestContextOptions } from './app.ts';
import { type DifyFake, type DifyFakeApp, startDifyFake } from './fakes/dify-fake.ts';

export interface DifyTestContext extends TestContext {
  dify: DifyFake;
}

export interface DifyTestContextOptions extends TestContextOptions {
  /** The key the fake asks for (what a creator pastes as the app's API key). */
  apiKey: string;
  /** The fake's app, over its default one. */
  app?: Partial<DifyFakeApp>;
  /** Also serve OpenAI model names with the OpenAI-compatible fake (createPaidTestContext). */
  paid?: boolean;
}

/** A Dify chatflow with a form of one required field (topic), as a creator would wrap one. */
export const SUPPORT_BOT_APP = {
  mode: 'advanced-chat',
  name: 'Support Bot',
  description: 'Answers support questions',
  userInputForm: [{ 'text-input': { label: 'Topic', variable: 'topic', required: true, max_length: 48 } }],
} satisfies Partial<DifyFakeApp>;

/** `env` adds to (or overrides) ALLOW_PRIVATE_PROVIDER_URLS=on. */
export async function createDifyTestContext(
  env: Record<string, string>,
  options: DifyTestContextOptions & { paid: true },
): Promise<DifyTestContext & PaidTestContext>;
export async function createDifyTestContext(env: Record<string, string>, options: DifyTestContextOptions): Promise<DifyTestContext>;
export async function createDifyTestContext(env: Record<string, string>, { apiKey, app, paid = false, ...options }: DifyTestContextOptions) {
  const dify = await startDifyFake({ apiKey, ...(app ? { app } : {}) });
  const ctx = await closingWith(dify, () => (paid ? createPaidTestContext : createTestContext)({ ALLOW_PRIVATE_PROVIDER_URLS: 'on', ...env }, options));
  return { ...ctx, dify };
}

/** A Dify test context (not paid) for the whole test file: closed after its tests, the Dify fake reset before each. */
export async function difyTestContextForFile(env: Record<string, string>, options: DifyTestContextOptions & { paid?: false }): Promise<DifyTestContext> {
  const ctx = await createDifyTestContext(env, options);
  afterAll(() => ctx.close());
  beforeEach(() => ctx.dify.reset());
  return ctx;
}

/** The fields of a public workflow app, priced `priceCents`, that wraps the fake's app (app id dify-app) with `apiKey`. */
export const workflowAppFields = (dify: DifyFake, apiKey: string, name: string, priceCents: number) => ({
  name,
  type: 'workflow',
  visibility: 'public',
  price_cents: priceCents,
  provider_config: { app_id: 'dify-app', api_key: apiKey, base_url: dify.baseUrl },
});
