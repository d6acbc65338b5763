// The operator's view (GET /api/operator/...): answered only for accounts whose verified email
// ADMIN_EMAILS lists; everyone else gets 404, which the web app reads as "not an operator".
export type OperatorPeriod = 7 | 30 | 90;

export const operatorKeys = {
  all: ['operator'] as const,
  access: () => [...operatorKeys.all, 'access'] as const,
  overview: (days: OperatorPeriod) => [...operatorKeys.all, 'overview', days] as const,
  topCosts: (days: OperatorPeriod) => [...operatorKeys.all, 'top-costs', days] as const,
};
