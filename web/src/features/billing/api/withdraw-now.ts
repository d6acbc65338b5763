// POST /api/billing/payouts/withdraw/: pays out what is available now.
import type { WithdrawResult } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

export const withdrawNow = () => api.post<WithdrawResult>('/billing/payouts/withdraw/', undefined, { auth: 'required' });
