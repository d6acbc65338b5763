// Says plainly, before a creator publishes, that an app answers from the built-in demo model
// (its model's provider is not configured on this server), that demo answers are never charged,
// and how the server's operator configures the provider. Renders nothing for a real model.
import { demoModelNotice } from '@tollbooth/contract';
import { useRuntimeConfig } from '@/lib/runtime-config';

export const DEMO_MODEL_NOTICE_TITLE = 'This app answers from the demo model';

export function DemoModelNotice({ model, className = '' }: { model: string | null | undefined; className?: string }) {
  const { demo_models: demoModels } = useRuntimeConfig();
  const demo = model ? demoModels.find((entry) => entry.name === model) : undefined;
  if (!demo) return null;
  return (
    <section aria-label="Demo model" data-testid="demo-model-notice" className={`rounded-md bg-amber-50 p-4 ring-1 ring-amber-300 ${className}`}>
      <h2 className="text-sm font-semibold text-amber-900">{DEMO_MODEL_NOTICE_TITLE}</h2>
      <p className="mt-1 text-sm text-amber-900">{demoModelNotice(demo.name, demo.provider)}</p>
    </section>
  );
}
