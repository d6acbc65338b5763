import { queryOptions, useQuery } from '@tanstack/react-query';
import type { WorkflowConfig } from '@tollbooth/contract';
import { api } from '@/lib/api-client';
import { workflowKeys, workflowPath } from './workflow-keys';

/**
 * GET /api/app/{slug}/workflow/ — provider, settings (secrets masked), limits and the Dify app info
 * (owner only). The workflow pages and the API console share the cache entry.
 */
export function getWorkflowConfig(slug: string, signal?: AbortSignal): Promise<WorkflowConfig> {
  return api.get<WorkflowConfig>(workflowPath(slug), { auth: 'required', signal });
}

export function workflowConfigQueryOptions(slug: string) {
  return queryOptions({ queryKey: workflowKeys.config(slug), queryFn: ({ signal }) => getWorkflowConfig(slug, signal) });
}

export function useWorkflowConfig(slug: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...workflowConfigQueryOptions(slug), enabled: enabled && slug !== '' });
}
