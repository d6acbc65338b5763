// A paid call as the gateway reports it delivered (billing/paid-call/service.ts settle()), for tests that drive
// billing without a model: one completion of one token each way, with no model cost.
import { randomUUID } from 'node:crypto';
import type { DeliveredCall } from '../billing/paid-call/service.ts';

export const deliveredCall = ({ appId, ownerId, callerId, name }: { appId: string; ownerId: string; callerId: string; name: string }): DeliveredCall => ({
  invocationId: randomUUID(),
  appId,
  creatorId: ownerId,
  description: `Call to ${name}`,
  callerId,
  apiKeyId: null,
  endUser: 'u',
  mode: 'completion',
  latencyMs: 1,
  inputTokens: 1,
  outputTokens: 1,
  model: 'gpt-4',
  provider: 'openai',
  modelCostMicros: 0,
  createdAt: new Date(),
  turn: null,
});
