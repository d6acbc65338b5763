// The orchestrator's probes (issue 57): GET /livez answers while the process can answer at all,
// asking nothing else (a failing database must not get every process restarted); GET /readyz says
// whether this process should get calls now: not draining (http/drain.ts), the database
// answering within a deadline, and every migration this code knows applied. 503 names the reason.
// Served at the root, outside /api, so no management rate limit or sign-in applies.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, Live, NotReady, Ready } from '@tollbooth/contract';
import type { Database } from '../db/client.ts';
import { listMigrations } from '../db/migrate.ts';
import type { Lifecycle } from '../http/drain.ts';

/** How long /readyz waits for the database before it answers 503. */
const DATABASE_DEADLINE_MS = 2000;

export function createReadiness({
  db,
  lifecycle,
  migrations = listMigrations().map(({ name }) => name),
}: {
  db: Database;
  lifecycle: Lifecycle;
  migrations?: string[];
}) {
  return async (): Promise<Ready | NotReady> => {
    if (lifecycle.draining) return { status: 'unavailable', reason: 'draining', message: 'This process is shutting down.' };
    let timer: NodeJS.Timeout | undefined;
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_DEADLINE_MS} ms`)), DATABASE_DEADLINE_MS);
      });
      const { rows } = await Promise.race([
        db.query<{ applied: string[] }>('SELECT coalesce(array_agg(name), ARRAY[]::text[]) AS applied FROM schema_migrations WHERE name = ANY($1)', [
          migrations,
        ]),
        deadline,
      ]);
      const applied = new Set(rows[0]?.applied ?? []);
      const pending = migrations.filter((name) => !applied.has(name));
      if (pending.length > 0) {
        return { status: 'unavailable', reason: 'migrations_pending', message: `Migrations not applied: ${pending.join(', ')}.` };
      }
      return { status: 'ready', database: db.kind };
    } catch (error) {
      return { status: 'unavailable', reason: 'database_unreachable', message: `The database does not answer: ${(error as Error).message}.` };
    } finally {
      clearTimeout(timer);
    }
  };
}

export const probeRoutes: FastifyPluginAsyncTypebox<{ readiness: () => Promise<Ready | NotReady> }> = async (app, { readiness }) => {
  app.get(
    '/livez',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness probe: the process answers',
        description: 'Asks nothing of the database or any other service: restart the process only when this fails.',
        security: [],
        response: { 200: Live, 400: ErrorResponse },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'live' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['system'],
        summary: 'Readiness probe: this process takes calls',
        description:
          'Ready when the database answers within 2 s, every migration this version knows is applied, and the process is not draining. ' +
          '503 names the reason: `draining` (it got SIGTERM and finishes its calls), `database_unreachable`, or `migrations_pending`.',
        security: [],
        response: { 200: Ready, 400: ErrorResponse, 503: NotReady },
      },
    },
    async (_request, reply) => {
      const result = await readiness();
      reply.header('cache-control', 'no-store');
      return result.status === 'ready' ? result : reply.status(503).send(result);
    },
  );
};
