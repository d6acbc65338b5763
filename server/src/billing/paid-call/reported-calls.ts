// The calls as the gateway reports them to billing (service.ts): delivered, to be settled, or failed,
// to be recorded; and the settlement a delivered call becomes (settlement-sql.ts writes it).

import { randomUUID } from 'node:crypto';
import type { Settlement } from './settlement-sql.ts';

/** A delivered call, as the gateway reports it. */
export interface DeliveredCall {
  invocationId: string;
  appId: string;
  /** The app's owner, who earns the price less the platform fee. */
  creatorId: string;
  /** The ledger transaction's description. */
  description: string;
  callerId: string;
  apiKeyId: string | null;
  endUser: string;
  mode: 'completion' | 'chat';
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  /** Answered by the built-in demo model (then the charge's price is 0). */
  demo?: boolean;
  /** The model name and provider kind that answered ('' for workflow calls). */
  model: string;
  provider: string;
  /** What the answer cost upstream on the operator's key, in micro-dollars. */
  modelCostMicros: number;
  /** Input tokens the provider served from its cache (part of inputTokens), where it reports them. */
  cachedInputTokens?: number;
  createdAt: Date;
  /** Chat calls: the turn to save. */
  turn: Settlement['turn'];
}

/**
 * The settlement of a delivered call, field by field: every settlement has the same fields in the
 * same order (one object shape for the journal's and the batch's JSON), and no copy of the call is
 * made on the way (an object rest and spread cost 2–3 % of the gateway's thread at 50 connections).
 */
export function settlementOf(
  call: DeliveredCall,
  money: Pick<Settlement, 'priceCents' | 'chargeMicros' | 'feeMicros' | 'charge' | 'cost' | 'failure' | 'turn'>,
): Settlement {
  return {
    invocationId: call.invocationId,
    appId: call.appId,
    ownerId: call.creatorId,
    callerId: call.callerId,
    apiKeyId: call.apiKeyId,
    endUser: call.endUser,
    mode: call.mode,
    latencyMs: call.latencyMs,
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    priceCents: money.priceCents,
    chargeMicros: money.chargeMicros,
    feeMicros: money.feeMicros,
    model: call.model,
    provider: call.provider,
    modelCostMicros: call.modelCostMicros,
    demo: call.demo,
    createdAt: call.createdAt,
    ledgerTransactionId: randomUUID(),
    description: call.description,
    charge: money.charge,
    cost: money.cost,
    failure: money.failure,
    turn: money.turn,
  };
}

/** A failed call, as the gateway reports it; it is recorded and costs nothing. */
export interface FailedCall {
  appId: string;
  callerId: string | null;
  apiKeyId: string | null;
  endUser: string;
  mode: 'completion' | 'chat';
  errorType: string;
  latencyMs: number;
  /** Attempted on the built-in demo model. */
  demo?: boolean;
}
