export * from './analytics.ts';
export * from './apps.ts';
export * from './auth.ts';
export * from './billing.ts';
export * from './common.ts';
export * from './keys.ts';
export * from './profile.ts';
export * from './prompts.ts';
