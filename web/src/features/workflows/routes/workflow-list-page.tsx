import { AppListScreen } from '@/components/ui/list-screen';
import { WorkflowCard } from '../components/workflow-card';

export const WORKFLOWS_LOGGED_OUT_MESSAGE = 'Please log in to view workflows.';

export function WorkflowListPage() {
  return (
    <AppListScreen
      type="workflow"
      title="Workflow Applications"
      subtitle="Dify workflows you publish as paid API endpoints."
      loggedOutMessage={WORKFLOWS_LOGGED_OUT_MESSAGE}
      loadingMessage="Loading workflows..."
      empty={{
        title: 'No workflows',
        text: 'Get started by connecting a Dify workflow.',
        filteredText: 'No workflow applications match these filters.',
        linkLabel: 'Create New Workflow',
      }}
      renderCard={(props) => <WorkflowCard {...props} />}
    />
  );
}
