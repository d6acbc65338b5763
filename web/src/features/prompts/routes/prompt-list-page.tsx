import { AppListScreen } from '@/components/ui/list-screen';
import { PromptCard } from '../components/prompt-card';

export const PROMPTS_LOGGED_OUT_MESSAGE = 'Please log in to view prompts.';

export function PromptListPage() {
  return (
    <AppListScreen
      type="prompt"
      title="Prompt Applications"
      subtitle="Prompts you publish as completion or chat API endpoints."
      loggedOutMessage={PROMPTS_LOGGED_OUT_MESSAGE}
      loadingMessage="Loading prompts..."
      empty={{
        title: 'No prompts',
        text: 'Get started by creating a new prompt application.',
        filteredText: 'No prompt applications match these filters.',
        linkLabel: 'Create New Prompt',
      }}
      renderCard={(props) => <PromptCard {...props} />}
    />
  );
}
