// Analytics answers. Units are part of the contract: response times in seconds, success rates in
// percent (0–100), revenue in dollars computed from integer cents, dates as ISO days (YYYY-MM-DD)
// in UTC. Every series has one entry per day of the period, oldest first, zero-filled. The period
// query (days = 7, 30 or 90) is PeriodQuery in apps.ts.
//
// Every call has an outcome (docs/design.md): success; failed (the app or its provider failed); or
// rejected (the caller's own mistake: a bad or missing key, a private app, invalid inputs, no
// credit, a rate limit…). Success rates are success / (success + failed); rejected calls are
// counted apart, by error type, and response times are those of answered and failed calls.
import { type Static, Type } from 'typebox';
import { NullableDateTime } from './common.ts';

const IsoDay = Type.String({ description: 'ISO day (YYYY-MM-DD), UTC' });
const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description: `${description}, in percent (0–100), two decimals` });
const Seconds = (description: string) => Type.Number({ minimum: 0, description: `${description}, in seconds, millisecond precision` });
const Count = (description: string) => Type.Integer({ minimum: 0, description });
const SUCCESS_RATE = 'Successful calls over successful plus failed calls of the period (rejected calls left out); 0 without such calls';
const RESPONSE_TIME = 'Mean response time of the answered and failed calls';

export const CallOutcome = Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('rejected')], {
  description: "success; failed (the app or its provider failed); rejected (the caller's own mistake)",
});
export type CallOutcome = Static<typeof CallOutcome>;

const ErrorGroups = (what: string) =>
  Type.Array(
    Type.Object({
      error_type: Type.String({ description: 'The error code or finer reason, e.g. provider_timeout or unauthorized; empty when unknown' }),
      count: Count(`${what} of this type over the period`),
    }),
    { description: `${what} over the period grouped by error type, most frequent first` },
  );

export const RECENT_INVOCATIONS_DEFAULT_LIMIT = 20;
export const RECENT_INVOCATIONS_MAX_LIMIT = 100;
export const INVOCATIONS_CSV_DEFAULT_LIMIT = 1000;
export const INVOCATIONS_CSV_MAX_LIMIT = 10_000;
/** The longest period an invocations export covers: a year (leap years included). */
export const INVOCATIONS_CSV_MAX_DAYS = 366;

export const DashboardAnalytics = Type.Object({
  overview: Type.Object({
    total_applications: Count("The signed-in user's applications (deleted ones excluded)"),
    total_invocations: Count('Calls over the period, whatever their outcome'),
    total_users: Count('Distinct end users over the period, across all the applications'),
    success_rate: Percent(SUCCESS_RATE),
    rejected_count: Count("Calls rejected over the period for the caller's own mistake"),
  }),
  time_series: Type.Object({
    data: Type.Array(
      Type.Object({
        date: IsoDay,
        invocations: Count('Calls that day'),
        success_count: Count('Successful calls that day'),
        error_count: Count('Failed calls that day (the app or its provider failed)'),
        rejected_count: Count("Calls rejected that day for the caller's own mistake"),
        avg_response_time: Seconds(`${RESPONSE_TIME} that day; 0 without such calls`),
        input_tokens: Count('Input (prompt) tokens that day'),
        output_tokens: Count('Output (completion) tokens that day'),
      }),
      { description: 'One entry per UTC day of the period, oldest first, zero-filled' },
    ),
  }),
  applications: Type.Array(
    Type.Object({
      application_name: Type.String(),
      application_slug: Type.String(),
      // An enum, not a union of literals: an answer's serialiser checks every value of a union against its options (1,000 apps).
      application_type: Type.Unsafe<'prompt' | 'workflow'>({ type: 'string', enum: ['prompt', 'workflow'] }),
      invocations: Count('Calls over the period, whatever their outcome'),
      success_rate: Percent(SUCCESS_RATE),
      rejected_count: Count("Calls rejected over the period for the caller's own mistake"),
      avg_response_time: Seconds(`${RESPONSE_TIME} over the period; 0 without such calls`),
      last_used: NullableDateTime({
        description: 'When the application was last called (any time), or null if never',
      }),
    }),
    { description: 'Every application of the user, most called first' },
  ),
  errors: ErrorGroups('Failed calls (the app or its provider failed)'),
  rejections: ErrorGroups("Rejected calls (the caller's own mistake)"),
});

export const PerformanceAnalytics = Type.Object({
  success_rate: Percent(SUCCESS_RATE),
  average_response_time: Seconds(`${RESPONSE_TIME} over the period; 0 without such calls`),
  failed_count: Count('Failed calls over the period (the app or its provider failed)'),
  rejected_count: Count("Calls rejected over the period for the caller's own mistake"),
  errors: ErrorGroups('Failed calls (the app or its provider failed)'),
  rejections: ErrorGroups("Rejected calls (the caller's own mistake)"),
  data: Type.Array(
    Type.Object({
      date: IsoDay,
      success_count: Count('Successful calls that day'),
      error_count: Count('Failed calls that day (the app or its provider failed)'),
      rejected_count: Count("Calls rejected that day for the caller's own mistake"),
      response_time: Seconds(`${RESPONSE_TIME} that day; 0 without such calls`),
    }),
    { description: 'One entry per UTC day of the period, oldest first, zero-filled' },
  ),
});

export const RecentInvocationsQuery = Type.Object({
  limit: Type.Integer({
    minimum: 1,
    maximum: RECENT_INVOCATIONS_MAX_LIMIT,
    default: RECENT_INVOCATIONS_DEFAULT_LIMIT,
    description: `How many of the newest calls (1–${RECENT_INVOCATIONS_MAX_LIMIT})`,
  }),
});

export const RecentInvocation = Type.Object({
  id: Type.String({ format: 'uuid' }),
  end_user: Type.Union([Type.String(), Type.Null()], {
    description: 'The `user` the caller sent with the call; null when it sent none (shown as Anonymous). Never an account id',
  }),
  status: Type.Union([Type.Literal('success'), Type.Literal('error')], { description: 'success, or error for any call that was not answered' }),
  outcome: CallOutcome,
  error_type: Type.String({ description: 'Why the call failed or was rejected; empty for successful calls' }),
  response_time: Seconds('Time from receiving the call to answering it'),
  input_tokens: Count('Input (prompt) tokens'),
  output_tokens: Count('Output (completion) tokens'),
  price_cents: Count('What the caller paid for the call, in cents (0 for free, included and failed calls)'),
  charge_micros: Count(
    'What the call cost its caller, exactly, in micro-dollars (issue 60): the rate card applied to its usage. price_cents is the whole cents posted for it (charges below a cent add up across calls)',
  ),
  model_cost: Type.Number({
    minimum: 0,
    description:
      "What the call cost upstream on the platform's model key, in dollars (micro-dollar precision); 0 on the demo model and the creator's own key. Only the app's owner sees it",
  }),
  created_at: Type.String({ format: 'date-time' }),
});

export const RecentInvocations = Type.Array(RecentInvocation, { description: 'Newest first' });

export const InvocationsCsvQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: INVOCATIONS_CSV_MAX_LIMIT,
      description: `How many of the newest calls to export (1–${INVOCATIONS_CSV_MAX_LIMIT}); without \`days\` the default is ${INVOCATIONS_CSV_DEFAULT_LIMIT}, with it every call of the period`,
    }),
  ),
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: INVOCATIONS_CSV_MAX_DAYS,
      description: `Every call of the last \`days\` UTC days, today included (1–${INVOCATIONS_CSV_MAX_DAYS}), streamed as it is read; with \`limit\`, the newest \`limit\` of them`,
    }),
  ),
});

export type DashboardAnalytics = Static<typeof DashboardAnalytics>;
export type PerformanceAnalytics = Static<typeof PerformanceAnalytics>;
export type RecentInvocation = Static<typeof RecentInvocation>;
export type RecentInvocations = Static<typeof RecentInvocations>;
