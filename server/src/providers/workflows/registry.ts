// The workflow provider registry: one module per provider behind the WorkflowProvider interface.
// Adding a provider is a new module and one line here; the gateway and the workflow
// configuration only ever look providers up by id.
import { createDifyProvider } from './dify.ts';
import type { WorkflowProvider } from './types.ts';

export interface WorkflowProviderRegistry {
  list(): WorkflowProvider[];
  /** Null for an unknown id. */
  get(id: string): WorkflowProvider | null;
}

export const DEFAULT_WORKFLOW_PROVIDER = 'dify';

export function createWorkflowProviderRegistry(options: { allowPrivateUrls: boolean }): WorkflowProviderRegistry {
  const providers: WorkflowProvider[] = [createDifyProvider({ allowPrivate: options.allowPrivateUrls })];
  const byId = new Map(providers.map((provider) => [provider.id, provider]));
  return {
    list: () => providers,
    get: (id) => byId.get(id) ?? null,
  };
}
