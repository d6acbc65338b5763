// Calls answered by the built-in demo model are never charged: the gateway reserves nothing for
// them (price 0, like an owner's own call), records them marked demo, and says so in the answer's
// metadata, so neither the caller nor the creator can take a demo answer for a paid one.
import { type CallAnswer, demoAnswerNotice } from '@tollbooth/contract';
import type { ResolvedModel } from '../providers/registry.ts';

/** The metadata fields of an answer the demo model gave; none for a real model's answer. */
export function demoMetadata(resolved: Pick<ResolvedModel, 'demo' | 'providerKind' | 'upstreamModel'>): Pick<CallAnswer['metadata'], 'demo' | 'demo_notice'> {
  if (!resolved.demo) return {};
  return { demo: true, demo_notice: demoAnswerNotice(resolved.upstreamModel, resolved.providerKind ?? 'openai') };
}
