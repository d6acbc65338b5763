// Dify's Service API around the paid call, per app at /api/app/{slug}: the app's parameters
// (input form), info, meta and site; the caller's conversations and messages, feedbacks,
// stopping a stream and workflow runs. Field names are Dify's (../shared/providers/dify-api.md).
import { type Static, Type } from 'typebox';

/** One field of an input form; the entry's single key is its kind. */
export const DifyFormField = Type.Object(
  {
    label: Type.Optional(Type.String()),
    variable: Type.String(),
    required: Type.Optional(Type.Boolean()),
    default: Type.Optional(Type.Unknown()),
    options: Type.Optional(Type.Array(Type.String())),
    max_length: Type.Optional(Type.Integer()),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
export const DifyFormEntry = Type.Record(Type.String(), DifyFormField, {
  description: 'One key: text-input, paragraph, select, number, checkbox or json_object (workflow apps: what their provider reported)',
});
export type DifyFormEntry = Static<typeof DifyFormEntry>;

const Feature = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: true });

export const DifyParameters = Type.Object(
  {
    opening_statement: Type.String(),
    suggested_questions: Type.Array(Type.String()),
    suggested_questions_after_answer: Feature,
    speech_to_text: Feature,
    text_to_speech: Feature,
    retriever_resource: Feature,
    annotation_reply: Feature,
    more_like_this: Feature,
    sensitive_word_avoidance: Feature,
    user_input_form: Type.Array(DifyFormEntry),
    file_upload: Type.Object(
      {
        enabled: Type.Boolean(),
        allowed_file_types: Type.Array(Type.String()),
        allowed_file_extensions: Type.Array(Type.String()),
        allowed_file_upload_methods: Type.Array(Type.String()),
        number_limits: Type.Integer(),
        image: Type.Object(
          { enabled: Type.Boolean(), number_limits: Type.Integer(), detail: Type.String(), transfer_methods: Type.Array(Type.String()) },
          { additionalProperties: true },
        ),
      },
      { additionalProperties: true },
    ),
    system_parameters: Type.Object(
      {
        file_size_limit: Type.Number({ description: 'MB' }),
        image_file_size_limit: Type.Number({ description: 'MB' }),
        audio_file_size_limit: Type.Number(),
        video_file_size_limit: Type.Number(),
        workflow_file_upload_limit: Type.Integer(),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
export type DifyParameters = Static<typeof DifyParameters>;

export const DifyAppInfo = Type.Object({
  name: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  mode: Type.String({ description: 'completion | chat for prompt apps; the Dify mode for workflow apps (workflow, advanced-chat, …)' }),
  author_name: Type.String(),
});
export type DifyAppInfo = Static<typeof DifyAppInfo>;

export const DifyAppMeta = Type.Object({ tool_icons: Type.Record(Type.String(), Type.Unknown()) });

export const DifyAppSite = Type.Object({
  title: Type.String(),
  chat_color_theme: Type.Union([Type.String(), Type.Null()]),
  chat_color_theme_inverted: Type.Boolean(),
  icon_type: Type.Union([Type.String(), Type.Null()]),
  icon: Type.Union([Type.String(), Type.Null()]),
  icon_background: Type.Union([Type.String(), Type.Null()]),
  icon_url: Type.Union([Type.String(), Type.Null()]),
  description: Type.String(),
  copyright: Type.Union([Type.String(), Type.Null()]),
  privacy_policy: Type.Union([Type.String(), Type.Null()]),
  custom_disclaimer: Type.String(),
  default_language: Type.String(),
  show_workflow_steps: Type.Boolean(),
  use_icon_as_answer_icon: Type.Boolean(),
});

export const DifyUserQuery = Type.Object({
  user: Type.Optional(Type.String({ maxLength: 200, description: 'Your end-user id (conversations are listed per end user when given)' })),
});

export const DifyConversation = Type.Object({
  id: Type.String(),
  name: Type.String(),
  inputs: Type.Record(Type.String(), Type.Unknown()),
  status: Type.String(),
  introduction: Type.String(),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  updated_at: Type.Integer({ description: 'Unix seconds' }),
});
export type DifyConversation = Static<typeof DifyConversation>;

export const DifyConversationsQuery = Type.Object({
  user: Type.Optional(Type.String({ maxLength: 200 })),
  last_id: Type.Optional(Type.String({ description: 'The last conversation of the previous page' })),
  first_id: Type.Optional(Type.String({ description: 'Accepted as last_id (what dify-client sends)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  sort_by: Type.Optional(Type.String()),
  pinned: Type.Optional(Type.String()),
});

export const DifyConversationList = Type.Object({ limit: Type.Integer(), has_more: Type.Boolean(), data: Type.Array(DifyConversation) });

export const DifyConversationParams = Type.Object({ slug: Type.String(), conversation_id: Type.String() });

export const DifyRenameRequest = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    auto_generate: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    user: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
);

export const DifyUserBody = Type.Object({ user: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: true });

export const DifyMessage = Type.Object({
  id: Type.String(),
  conversation_id: Type.String(),
  inputs: Type.Record(Type.String(), Type.Unknown()),
  query: Type.String(),
  answer: Type.String(),
  message_files: Type.Array(Type.Unknown()),
  feedback: Type.Union([Type.Object({ rating: Type.String() }), Type.Null()]),
  retriever_resources: Type.Array(Type.Unknown()),
  created_at: Type.Integer({ description: 'Unix seconds' }),
});

export const DifyMessagesQuery = Type.Object({
  conversation_id: Type.String(),
  user: Type.Optional(Type.String({ maxLength: 200 })),
  first_id: Type.Optional(Type.String({ description: 'The oldest message of the previous page: answers the messages before it' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

export const DifyMessageList = Type.Object({ limit: Type.Integer(), has_more: Type.Boolean(), data: Type.Array(DifyMessage) });

export const DifyMessageParams = Type.Object({ slug: Type.String(), message_id: Type.String() });

export const DifyFeedbackRequest = Type.Object(
  {
    rating: Type.Optional(Type.Union([Type.Literal('like'), Type.Literal('dislike'), Type.Null()])),
    content: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
    user: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
);

export const DifyResult = Type.Object({ result: Type.String() });
export const DifySuggested = Type.Object({ result: Type.String(), data: Type.Array(Type.String()) });

export const DifyTaskParams = Type.Object({ slug: Type.String(), task_id: Type.String() });

export const DifyWorkflowRunRequest = Type.Object(
  {
    inputs: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
    response_mode: Type.Optional(Type.Union([Type.Literal('blocking'), Type.Literal('streaming')], { default: 'blocking' })),
    user: Type.Optional(Type.String({ maxLength: 200 })),
    files: Type.Optional(Type.Union([Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 10 }), Type.Null()])),
  },
  { additionalProperties: true },
);

export const DifyWorkflowRunAnswer = Type.Object({
  workflow_run_id: Type.String(),
  task_id: Type.String(),
  data: Type.Object({
    id: Type.String(),
    workflow_id: Type.String(),
    status: Type.String({ description: 'succeeded' }),
    outputs: Type.Record(Type.String(), Type.Unknown()),
    error: Type.Union([Type.String(), Type.Null()]),
    elapsed_time: Type.Number({ description: 'Seconds' }),
    total_tokens: Type.Integer(),
    total_steps: Type.Integer(),
    created_at: Type.Integer(),
    finished_at: Type.Integer(),
  }),
});
export type DifyWorkflowRunAnswer = Static<typeof DifyWorkflowRunAnswer>;

export const DifyWorkflowRunParams = Type.Object({ slug: Type.String(), workflow_run_id: Type.String() });

/** GET /workflows/run/{workflow_run_id}: one of your runs, as Dify answers it. */
export const DifyWorkflowRunDetail = Type.Object({
  id: Type.String(),
  workflow_id: Type.String(),
  status: Type.String({ description: 'succeeded or failed' }),
  inputs: Type.String({ description: 'JSON text of the inputs (as Dify)' }),
  outputs: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'Tollbooth keeps no workflow outputs: null' }),
  error: Type.Union([Type.String(), Type.Null()]),
  total_steps: Type.Integer(),
  total_tokens: Type.Integer(),
  created_at: Type.Integer(),
  finished_at: Type.Union([Type.Integer(), Type.Null()]),
  elapsed_time: Type.Number({ description: 'Seconds' }),
});
export type DifyWorkflowRunDetail = Static<typeof DifyWorkflowRunDetail>;

export const DifyWorkflowLogsQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('stopped')])),
  page: Type.Integer({ minimum: 1, maximum: 99999, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

/** GET /workflows/logs: your runs of the app, newest first, in Dify's page shape. */
export const DifyWorkflowLogs = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  has_more: Type.Boolean(),
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      workflow_run: Type.Object({
        id: Type.String(),
        version: Type.String(),
        status: Type.String(),
        error: Type.Union([Type.String(), Type.Null()]),
        elapsed_time: Type.Number(),
        total_tokens: Type.Integer(),
        total_steps: Type.Integer(),
        created_at: Type.Integer(),
        finished_at: Type.Union([Type.Integer(), Type.Null()]),
      }),
      created_from: Type.String(),
      created_by_role: Type.String(),
      created_by_account: Type.Null(),
      created_by_end_user: Type.Object({ id: Type.String(), type: Type.String(), is_anonymous: Type.Boolean(), session_id: Type.String() }),
      created_at: Type.Integer(),
    }),
  ),
});
export type DifyWorkflowLogs = Static<typeof DifyWorkflowLogs>;
