// A paid call's trace (issue 58), as the layers that make it see it: null when tracing is off
// (OTEL_EXPORTER_OTLP_ENDPOINT unset), so an untraced call pays one null check per step. When on,
// observability/tracing.ts makes the tracer (OpenTelemetry's SDK, an OTLP/HTTP exporter, the
// sampler of OTEL_TRACES_SAMPLER); spans here are made with @opentelemetry/api alone, their parent
// passed by hand (no context manager, no AsyncLocalStorage on the call's path).
//
// Names and attributes follow OpenTelemetry's GenAI semantic conventions where they apply: the
// upstream call's span is "{gen_ai.operation.name} {gen_ai.request.model}" of kind CLIENT with
// gen_ai.* attributes; Tollbooth's own (price, outcome, app kind, path) are under tollbooth.*.
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  type Tracer,
  trace,
} from '@opentelemetry/api';

export type { Span } from '@opentelemetry/api';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span when tracing is on (null otherwise); a paid call's spans are its children (observability/observe.ts). */
    callSpan: Span | null;
  }
}

export interface Tracing {
  /** Starts the server span of a request, continuing the caller's W3C traceparent (and tracestate). */
  startRequest(name: string, headers: Record<string, string | string[] | undefined>): Span;
  /** A child span of `parent`. */
  child(parent: Span, name: string, attributes?: Attributes, kind?: SpanKind): Span;
  /** The traceparent header value that makes `span` the parent of the upstream's work. */
  traceparentOf(span: Span): string | undefined;
}

const getter = {
  keys: (carrier: Record<string, string | string[] | undefined>) => Object.keys(carrier),
  get: (carrier: Record<string, string | string[] | undefined>, key: string) => carrier[key],
};

export function createTracing(tracer: Tracer, propagator: TextMapPropagator): Tracing {
  const contextOf = (span: Span): Context => trace.setSpan(ROOT_CONTEXT, span);
  return {
    startRequest(name, headers) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, getter);
      return tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
    },
    child(parent, name, attributes, kind = SpanKind.INTERNAL) {
      return tracer.startSpan(name, { kind, attributes }, contextOf(parent));
    },
    traceparentOf(span) {
      const carrier: Record<string, string> = {};
      propagator.inject(contextOf(span), carrier, {
        set: (target, key, value) => {
          target[key] = value;
        },
      });
      return carrier.traceparent;
    },
  };
}

/** Ends a span as failed, with the error's type (error.type, as the conventions name it). */
export function endFailed(span: Span, errorType: string, message?: string): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}
