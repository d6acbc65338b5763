import { type Static, Type } from 'typebox';

export const WorkflowConfigField = Type.Object({
  title: Type.String(),
  description: Type.String(),
  type: Type.String(),
  default: Type.Optional(Type.String()),
  secret: Type.Optional(Type.Boolean({ description: 'Stored encrypted and returned masked (last 4 characters)' })),
});

export const WorkflowProviderInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  slug: Type.String(),
  config_schema: Type.Object({
    type: Type.Literal('object'),
    properties: Type.Record(Type.String(), WorkflowConfigField),
    required: Type.Array(Type.String()),
  }),
});

export const WorkflowProviderList = Type.Array(WorkflowProviderInfo);

const InputFormEntry = Type.Record(Type.String(), Type.Unknown());

/** What the provider says about the wrapped app: Dify's /info and /parameters. */
export const WorkflowAppInfo = Type.Object({
  name: Type.String(),
  description: Type.String(),
  mode: Type.String({ description: 'Dify: completion, chat, agent-chat, advanced-chat or workflow' }),
  user_input_form: Type.Array(InputFormEntry, {
    description: "Dify's user_input_form: [{text-input|paragraph|select|number: {label, variable, required, default, options}}]",
  }),
});

export const WORKFLOW_DEFAULTS = { timeout_seconds: 300, max_iterations: 10, enable_logging: true } as const;

const TimeoutSeconds = Type.Integer({
  minimum: 1,
  maximum: 600,
  description: 'Bounds each upstream call; past it the call fails with 504 provider_timeout and is not charged',
});
const MaxIterations = Type.Integer({
  minimum: 1,
  maximum: 1000,
  description: 'Turns one chat conversation may have; a call continuing a longer one is refused with 400 before any charge',
});
const EnableLogging = Type.Boolean({
  description: "On: each chat turn's query and answer are kept in the conversation log. Off: only the call's metadata (status, latency, tokens, price)",
});

export const WorkflowConfig = Type.Object({
  provider: Type.Union([WorkflowProviderInfo, Type.Null()]),
  provider_config: Type.Record(Type.String(), Type.String(), { description: 'Secret fields are masked: only the last 4 characters are shown' }),
  timeout_seconds: TimeoutSeconds,
  max_iterations: MaxIterations,
  enable_logging: EnableLogging,
  app_info: Type.Union([WorkflowAppInfo, Type.Null()], { description: 'Null until the configuration was checked against the provider' }),
  active_version: Type.Integer(),
  updated_at: Type.String({ format: 'date-time' }),
});

export const WorkflowConfigUpdate = Type.Object(
  {
    provider: Type.Optional(Type.String({ maxLength: 50, description: 'A provider id from GET /workflow-providers/' })),
    provider_config: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 }), {
        description: 'Send a masked secret back unchanged to keep the stored one',
      }),
    ),
    timeout_seconds: Type.Optional(TimeoutSeconds),
    max_iterations: Type.Optional(MaxIterations),
    enable_logging: Type.Optional(EnableLogging),
    changelog: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const WorkflowTestRequest = Type.Object(
  {
    provider: Type.Optional(Type.String({ maxLength: 50 })),
    provider_config: Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const WorkflowTestResult = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  error: Type.Union([Type.String(), Type.Null()]),
  app_info: Type.Union([WorkflowAppInfo, Type.Null()]),
});

export const WorkflowVersion = Type.Object({
  version: Type.Integer(),
  provider: Type.String(),
  provider_config: Type.Record(Type.String(), Type.String(), { description: 'Secrets masked' }),
  timeout_seconds: Type.Integer(),
  max_iterations: Type.Integer(),
  enable_logging: Type.Boolean(),
  app_info: Type.Union([WorkflowAppInfo, Type.Null()]),
  changelog: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const WorkflowVersionList = Type.Object({ active_version: Type.Integer(), versions: Type.Array(WorkflowVersion) });

export const WorkflowVersionCreate = Type.Object(
  {
    changelog: Type.Optional(Type.String({ maxLength: 1000 })),
    rollback_to: Type.Optional(Type.Integer({ minimum: 1, description: 'Restore this version as a new version and make it current' })),
  },
  { additionalProperties: false },
);

export type WorkflowProviderInfo = Static<typeof WorkflowProviderInfo>;
export type WorkflowAppInfo = Static<typeof WorkflowAppInfo>;
export type WorkflowConfig = Static<typeof WorkflowConfig>;
export type WorkflowConfigUpdate = Static<typeof WorkflowConfigUpdate>;
export type WorkflowTestRequest = Static<typeof WorkflowTestRequest>;
export type WorkflowTestResult = Static<typeof WorkflowTestResult>;
export type WorkflowVersion = Static<typeof WorkflowVersion>;
export type WorkflowVersionList = Static<typeof WorkflowVersionList>;
export type WorkflowVersionCreate = Static<typeof WorkflowVersionCreate>;
