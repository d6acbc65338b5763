// A publishable key's daily cap across two real server processes sharing one PostgreSQL (issue 28,
// decision 0030): calls fired at both at once are answered and charged exactly up to the cap, the
// rest refused and free. PGlite is one process's embedded database, so this runs with DATABASE_URL.
import { beforeAll, describe, expect, it } from 'vitest';
import { useProcessCluster } from '../test-support/process-cluster.ts';
import { sendJson as send } from '../test-support/server-process.ts';

const PUBLIC_URL = 'http://tollbooth.test';
const SITE = 'https://shop.example';

describe.runIf(process.env.DATABASE_URL)('a publishable key’s daily cap across two server processes', () => {
  const cluster = useProcessCluster();
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) await cluster.start({ PUBLIC_URL, RATE_LIMIT_PER_MINUTE: '1000000' });
  }, 60_000);

  it('answers and charges exactly the calls the day allows, of 20 sent to both processes at once', async () => {
    const [a, b] = cluster.servers.map((server) => server.base) as [string, string];
    const creator = await cluster.issuer.sign({ sub: 'embed-proc-creator', email: 'creator@example.com' });
    const siteOwner = await cluster.issuer.sign({ sub: 'embed-proc-site', email: 'site@example.com' });
    const app = await send(a, 'POST', '/api/app/', creator, {
      name: 'Shop help',
      type: 'prompt',
      visibility: 'public',
      price_cents: 10,
      interaction_mode: 'chat',
    });
    expect(app.status).toBe(201);
    const slug = app.body.slug as string;
    expect((await send(b, 'PATCH', `/api/app/${slug}/update_status/`, creator, { status: 'live' })).status).toBe(200);
    // Seven calls fit the day.
    const created = await send(a, 'POST', '/api/keys/', siteOwner, {
      name: 'Widget',
      kind: 'publishable',
      allowed_origins: [SITE],
      app_slugs: [slug],
      daily_spend_limit_cents: 70,
      monthly_spend_limit_cents: 5000,
      visitor_rate_limit_per_minute: 10000,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, key } = created.body as { id: string; key: string };
    const page = await fetch(`${b}/embed/${slug}?key=${encodeURIComponent(key)}`, { headers: { 'sec-fetch-dest': 'iframe', referer: `${SITE}/` } });
    expect(page.status).toBe(200);
    const settings = JSON.parse(/<script type="application\/json" id="tollbooth-embed">(.*?)<\/script>/.exec(await page.text())![1]!) as { token: string };
    const before = (await send(a, 'GET', '/api/billing/balance/', siteOwner)).body.credits_cents as number;
    cluster.upstream.setBehaviour({ delayMs: 30 });

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(
          i % 2 ? a : b,
          'POST',
          `/api/embed/${slug}/chat-messages`,
          key,
          { inputs: {}, query: `question ${i}`, user: `visitor-proc-${i}`, response_mode: 'blocking' },
          { origin: PUBLIC_URL, 'x-embed-token': settings.token },
        ),
      ),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(7);
    const refused = results.filter((result) => result.status !== 200);
    expect(refused.map((result) => [result.status, result.body.code])).toEqual(Array.from({ length: 13 }, () => [402, 'key_limit_exceeded']));
    expect(refused.every((result) => /daily spend limit/.test(result.body.message))).toBe(true);

    expect((await send(b, 'GET', '/api/billing/balance/', siteOwner)).body.credits_cents).toBe(before - 70);
    const { rows } = await cluster.database.db.query<{ charged: number; refused: number }>(
      `SELECT count(*) FILTER (WHERE status = 'success' AND price_cents = 10)::int AS charged,
              count(*) FILTER (WHERE status <> 'success' AND price_cents = 0)::int AS refused
       FROM invocations WHERE api_key_id = $1`,
      [id],
    );
    expect(rows[0]).toEqual({ charged: 7, refused: 13 });
  }, 60_000);
});
