// One file per resource of the workflow feature: the providers registry, the configuration
// (GET/PATCH), the provider check (test-config) and the version history with rollback.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  WorkflowConfig,
  WorkflowConfigUpdate,
  WorkflowProviderInfo,
  WorkflowTestRequest,
  WorkflowTestResult,
  WorkflowVersionCreate,
  WorkflowVersionList,
} from '@tollbooth/contract';
import { workflowKeys, workflowPath, workflowVersionsPath } from '@/lib/api/workflows/workflow-keys';
import { api } from '@/lib/api-client';

export { getWorkflowConfig, useWorkflowConfig } from '@/lib/api/workflows/get-workflow-config';

/** GET /api/workflow-providers/ */
export function getWorkflowProviders(signal?: AbortSignal): Promise<WorkflowProviderInfo[]> {
  return api.get<WorkflowProviderInfo[]>('/workflow-providers/', { auth: 'optional', signal });
}

export function useWorkflowProviders() {
  return useQuery({ queryKey: workflowKeys.providers(), queryFn: ({ signal }) => getWorkflowProviders(signal), staleTime: 5 * 60_000 });
}

/** PATCH /api/app/{slug}/workflow/ — a save that changes the settings is a new version. */
export function updateWorkflowConfig(slug: string, body: WorkflowConfigUpdate): Promise<WorkflowConfig> {
  return api.patch<WorkflowConfig>(workflowPath(slug), body, { auth: 'required' });
}

/** POST /api/app/{slug}/workflow/test-config/, or before the app exists POST /api/workflow-providers/test-config/ */
export function testWorkflowConfig(slug: string | null, body: WorkflowTestRequest): Promise<WorkflowTestResult> {
  const path = slug ? `${workflowPath(slug)}test-config/` : '/workflow-providers/test-config/';
  return api.post<WorkflowTestResult>(path, body, { auth: 'required' });
}

export function useTestWorkflowConfig() {
  return useMutation({ mutationFn: ({ slug, body }: { slug: string | null; body: WorkflowTestRequest }) => testWorkflowConfig(slug, body) });
}

/** GET /api/workflows/{id}/versions/ */
export function getWorkflowVersions(slug: string, signal?: AbortSignal): Promise<WorkflowVersionList> {
  return api.get<WorkflowVersionList>(workflowVersionsPath(slug), { auth: 'required', signal });
}

export function useWorkflowVersions(slug: string) {
  return useQuery({ queryKey: workflowKeys.versions(slug), queryFn: ({ signal }) => getWorkflowVersions(slug, signal) });
}

/** POST /api/workflows/{id}/versions/ — rollback_to restores a version as a new one. */
export function createWorkflowVersion(slug: string, body: WorkflowVersionCreate): Promise<WorkflowVersionList> {
  return api.post<WorkflowVersionList>(workflowVersionsPath(slug), body, { auth: 'required' });
}

export function useRollbackWorkflow(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => createWorkflowVersion(slug, { rollback_to: version }),
    onSuccess: async (versions) => {
      queryClient.setQueryData(workflowKeys.versions(slug), versions);
      await queryClient.invalidateQueries({ queryKey: workflowKeys.config(slug) });
    },
  });
}
