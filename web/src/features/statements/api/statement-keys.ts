// The query keys of the statements feature (issue 23 item 6).
import type { StatementRole } from '@tollbooth/contract';

export const statementKeys = {
  months: ['billing-statements'] as const,
  month: (month: string, role: StatementRole) => ['billing-statements', month, role] as const,
};
