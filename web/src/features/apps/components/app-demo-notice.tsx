import type { Application } from '@tollbooth/contract';
import { DemoModelNotice } from '@/components/ui/demo-model-notice';
import { usePromptConfig } from '@/lib/api/prompts/get-prompt-config';
import { useRuntimeConfig } from '@/lib/runtime-config';

/** Whether the notice may apply: only the owner may read the model; nothing to ask when every provider is configured. */
export function demoNoticeApplies(app: Application, demoModels: readonly unknown[]): boolean {
  return app.is_owner && app.type === 'prompt' && demoModels.length > 0;
}

/** The owner of a prompt app whose model the demo model answers is told so (and how to configure a provider). */
export function AppDemoNotice({ app }: { app: Application }) {
  const { demo_models: demoModels } = useRuntimeConfig();
  const applies = demoNoticeApplies(app, demoModels);
  const config = usePromptConfig(app.slug, { enabled: applies });
  if (!applies) return null;
  return <DemoModelNotice model={config.data?.key_source === 'own' ? null : config.data?.model} className="mt-6" />;
}
