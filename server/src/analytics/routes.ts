import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  DashboardAnalytics,
  InvocationsCsvQuery,
  PerformanceAnalytics,
  PeriodQuery,
  RecentInvocations,
  RecentInvocationsQuery,
  SlugParams,
  UsageAnalytics,
} from '@tollbooth/contract';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
import { CursorParam, sendPageHeaders } from '../http/pagination.ts';
import { SIGNED_IN_ERRORS as errors, signedInRoutes } from '../http/route-schema.ts';
import type { AnalyticsService, CsvExport, CsvStreamExport } from './service.ts';

const tags = ['analytics'];
const UNITS = 'Response times in seconds, success rates in percent (0–100), revenue in dollars computed from integer cents, dates as ISO days in UTC.';
const OWNER_ONLY = 'Owner only: anyone else gets 404, as for an application that does not exist.';
const csvResponse = (description: string) => ({
  description,
  content: { 'text/csv': { schema: Type.String({ description: 'CSV (RFC 4180) with a header row' }) } },
});

const sendCsv = (reply: FastifyReply, { filename, ...body }: CsvExport | CsvStreamExport) =>
  reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send('csv' in body ? body.csv : body.body);

/** An answer that comes as its JSON text (the dashboard's, its applications written by the database): sent as it is, not serialized again. */
const sendJsonText = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json);

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ analytics: AnalyticsService }> = async (app, { analytics }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  app.get(
    '/analytics/dashboard/',
    signedIn({
      summary: "Global analytics over the signed-in user's applications",
      description: `Totals, a daily series, per-application figures, failed calls by error type and rejected calls (the caller's own mistakes) by error type over the last \`days\` UTC days (today included), for the user's own applications (deleted ones excluded). Read from the daily rollups. ${UNITS}`,
      querystring: PeriodQuery,
      response: { 200: DashboardAnalytics, ...errors },
    }),
    async (request, reply) => sendJsonText(reply, await analytics.readDashboard(requireAuth(request).user, request.query.days)),
  );

  app.get(
    '/app/:slug/analytics/usage/',
    signedIn({
      summary: 'Usage of an application over a period (owner only)',
      description: `Totals and one entry per UTC day of the period (zero-filled). ${UNITS} ${OWNER_ONLY}`,
      params: SlugParams,
      querystring: PeriodQuery,
      response: { 200: UsageAnalytics, ...errors },
    }),
    async (request) => analytics.readUsage(request.params.slug, requireAuth(request).user, request.query.days),
  );

  app.get(
    '/app/:slug/analytics/performance/',
    signedIn({
      summary: 'Success rate, response times, failed and rejected calls of an application over a period (owner only)',
      description: `Period figures and one entry per UTC day of the period (zero-filled). ${UNITS} ${OWNER_ONLY}`,
      params: SlugParams,
      querystring: PeriodQuery,
      response: { 200: PerformanceAnalytics, ...errors },
    }),
    async (request) => analytics.readPerformance(request.params.slug, requireAuth(request).user, request.query.days),
  );

  app.get(
    '/app/:slug/analytics/invocations/',
    signedIn({
      summary: 'The newest calls of an application (owner only)',
      description: `Newest first. Response times in seconds, timestamps in ISO 8601 UTC. Paged: \`limit\` and \`cursor\`; the X-Has-More, X-Next-Cursor and Link headers describe the page. ${OWNER_ONLY}`,
      params: SlugParams,
      querystring: Type.Object({ ...RecentInvocationsQuery.properties, cursor: CursorParam }),
      response: { 200: RecentInvocations, ...errors },
    }),
    async (request, reply) =>
      sendPageHeaders(reply, await analytics.readRecentInvocations(request.params.slug, requireAuth(request).user, request.query.limit, request.query.cursor)),
  );

  app.get(
    '/app/:slug/analytics/invocations.csv',
    signedIn({
      summary: 'The calls of an application as CSV: the newest, or a period of up to a year (owner only)',
      description: `The newest \`limit\` calls (default 1,000), or with \`days\` every call of the last \`days\` UTC days (at most 366; more is a 400 naming \`days\`), read through a cursor and written as it is read, never held whole. Columns id, created_at (ISO 8601 UTC), end_user (the user the caller sent; empty when none), status (success or error), outcome (success, failed, or rejected for the caller's own mistake), error_type, response_time_seconds, input_tokens, output_tokens; newest first. Saved as {slug}-invocations.csv ({slug}-invocations-{days}d.csv for a period). Each statement runs under READ_STATEMENT_TIMEOUT_MS. ${OWNER_ONLY}`,
      params: SlugParams,
      querystring: InvocationsCsvQuery,
      response: { 200: csvResponse('The calls, one per line'), ...errors },
    }),
    async (request, reply) => sendCsv(reply, await analytics.exportInvocationsCsv(request.params.slug, requireAuth(request).user, request.query)),
  );

  app.get(
    '/app/:slug/analytics/usage.csv',
    signedIn({
      summary: 'The daily figures of an application as CSV (owner only)',
      description: `One line per UTC day of the period (zero-filled): date, invocations (every call), success_count, error_count (failed: the app or its provider failed), rejected_count (the caller's own mistake), success_rate_percent (success / (success + failed)), avg_response_time_seconds (answered and failed calls), input_tokens, output_tokens, revenue_dollars, revenue_cents, unique_users, then one rejected_{error_type} column per type of rejection in the period. Saved as {slug}-usage-{days}d.csv. ${OWNER_ONLY}`,
      params: SlugParams,
      querystring: PeriodQuery,
      response: { 200: csvResponse('The daily figures, one day per line'), ...errors },
    }),
    async (request, reply) => sendCsv(reply, await analytics.exportUsageCsv(request.params.slug, requireAuth(request).user, request.query.days)),
  );
};
