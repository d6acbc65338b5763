import { useMutation } from '@tanstack/react-query';
import type { WorkflowTestResult } from '@tollbooth/contract';
import { api } from '@/lib/api-client';

/** POST /api/workflow-providers/test-config/ — checks provider settings before the app exists. */
export function testWorkflowProvider(providerConfig: Record<string, string>): Promise<WorkflowTestResult> {
  return api.post<WorkflowTestResult>('/workflow-providers/test-config/', { provider: 'dify', provider_config: providerConfig }, { auth: 'required' });
}

export function useTestWorkflowProvider() {
  return useMutation({ mutationFn: testWorkflowProvider });
}
