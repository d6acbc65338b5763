import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, OperatorAccess, OperatorOverview, OperatorTopCosts, PeriodQuery } from '@tollbooth/contract';
import { hiddenRoute, type OperatorService } from './service.ts';

const security = [{ bearer: [] }];
const tags = ['operator'];
/** Left out of the public OpenAPI document: to anyone but an operator these routes do not exist. */
const hide = true;
const OPERATOR_ONLY =
  'Operators only (a signed-in account whose verified email ADMIN_EMAILS lists); anyone else gets 404, as for a route that does not exist. Cents are integer cents, model cost and net integer micro-dollars (1/10,000 cent).';

export const operatorRoutes: FastifyPluginAsyncTypebox<{ operator: OperatorService }> = async (app, { operator }) => {
  // Every route here: the operator's verified email, else 404 (signed in or not, valid token or
  // not), decided before the query is validated so nothing tells anyone else the routes exist.
  app.addHook('onRequest', async (request, reply) => {
    try {
      await app.authenticateOptional(request, reply);
    } catch {
      throw hiddenRoute(request.method, request.url);
    }
    if (operator.operatorEmail(request.auth) === null) throw hiddenRoute(request.method, request.url);
  });
  const emailOf = (auth: Parameters<OperatorService['operatorEmail']>[0]) => operator.operatorEmail(auth)!;

  app.get(
    '/operator/access/',
    {
      schema: {
        hide,
        tags,
        summary: 'Whether the signed-in account is an operator',
        description: `200 for an operator (the web app then links the operator page). ${OPERATOR_ONLY}`,
        security,
        response: { 200: OperatorAccess, 404: ErrorResponse },
      },
    },
    async (request) => operator.readAccess(emailOf(request.auth)),
  );

  app.get(
    '/operator/overview/',
    {
      schema: {
        hide,
        tags,
        summary: "The platform's money per day, by provider and by model",
        description: `What callers paid, platform fees, model cost on the platform keys and creators' net (paid − fees − model cost) over the last \`days\` UTC days (today included): totals, one entry per day (zero-filled), per provider and per model (highest model cost first). Read from the platform's daily rollup. ${OPERATOR_ONLY}`,
        security,
        querystring: PeriodQuery,
        response: { 200: OperatorOverview, 400: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request) => operator.readOverview(request.query.days),
  );

  app.get(
    '/operator/top-costs/',
    {
      schema: {
        hide,
        tags,
        summary: 'The accounts and applications that cost the most',
        description: `The ten accounts (their apps' calls and their test runs) and the ten applications with the highest model cost over the last \`days\` UTC days, with what their callers paid, fees and net. Deleted applications included. ${OPERATOR_ONLY}`,
        security,
        querystring: PeriodQuery,
        response: { 200: OperatorTopCosts, 400: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request) => operator.readTopCosts(request.query.days),
  );
};
