// GET /api/billing/ledger/?before=&limit=: the signed-in user's ledger, newest first, a page at a time.
import { useQuery } from '@tanstack/react-query';
import type { LedgerPage } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { billingKeys } from './billing-keys';

export const fetchLedgerPage = (before: string | null, limit = 100) =>
  api.get<LedgerPage>('/billing/ledger/', { auth: 'required', query: { limit, ...(before ? { before } : {}) } });
export const useLedger = () => useQuery({ queryKey: billingKeys.ledger, queryFn: () => fetchLedgerPage(null) });
