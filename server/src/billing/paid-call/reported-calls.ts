// The calls as the gateway reports them to billing (service.ts): delivered, to be settled, or failed,
// to be recorded; and the settlement a delivered call becomes (settlement-sql.ts writes it).

import { randomUUID } from 'node:crypto';
import type { Settlement } from './settlement-sql.ts';

/**
 * A delivered call, as the gateway reports it: the fields its settlement copies (settlement-sql.ts
 * describes them), the app's owner, who earns the price less the platform fee, and the input tokens
 * the provider served from its cache (part of inputTokens), where it reports them.
 */
export interface DeliveredCall
  extends Pick<
    Settlement,
    | 'invocationId'
    | 'appId'
    | 'description'
    | 'callerId'
    | 'apiKeyId'
    | 'endUser'
    | 'mode'
    | 'latencyMs'
    | 'inputTokens'
    | 'outputTokens'
    | 'demo'
    | 'model'
    | 'provider'
    | 'modelCostMicros'
    | 'createdAt'
    | 'turn'
  > {
  creatorId: string;
  cachedInputTokens?: number;
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
