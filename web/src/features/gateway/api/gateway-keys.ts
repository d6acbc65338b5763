// The query-key factory for what the console reads besides the applications themselves.
export const gatewayKeys = {
  all: ['gateway'] as const,
  promptConfigs: () => [...gatewayKeys.all, 'prompt-config'] as const,
  promptConfig: (slug: string) => [...gatewayKeys.promptConfigs(), slug] as const,
};
