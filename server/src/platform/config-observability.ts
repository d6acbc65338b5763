// The observability settings (issue 58): Prometheus metrics (METRICS_*) and OpenTelemetry traces
// (OTEL_*, the SDK's own names), read and validated with the rest of the configuration (config.ts).
import { FALSE_VALUES, TRUE_VALUES } from './config-values.ts';

/**
 * Prometheus metrics (issue 58; observability/): on when a token or a port is set. /metrics on the
 * main port answers a bearer of METRICS_TOKEN only; METRICS_PORT serves it on METRICS_HOST.
 */
export interface MetricsConfig {
  enabled: boolean;
  token: string | null;
  port: number | null;
  host: string;
  perApp: boolean;
}

/** OpenTelemetry traces (observability/tracing.ts): off when tracesUrl is null. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  tracesUrl: string | null;
  /** OTEL_EXPORTER_OTLP_HEADERS (and _TRACES_HEADERS): name=value pairs sent with each export. */
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_TRACES_SAMPLER (default parentbased_always_on) and OTEL_TRACES_SAMPLER_ARG (a ratio, default 1). */
  sampler: string;
  samplerRatio: number;
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf (the default) or http/json. */
  protocol: 'http/protobuf' | 'http/json';
}

type Env = Record<string, string | undefined>;

/** METRICS_TOKEN, METRICS_PORT, METRICS_HOST, METRICS_PER_APP (issue 58). */
export function readMetrics(env: Env, port: number, problems: string[]): MetricsConfig {
  const token = env.METRICS_TOKEN?.trim() || null;
  if (token !== null && !/^[\x21-\x7e]{16,512}$/.test(token)) {
    problems.push('METRICS_TOKEN must be 16 to 512 printable characters without spaces, e.g. from `openssl rand -hex 32`');
  }
  const rawPort = env.METRICS_PORT?.trim() || null;
  let metricsPort: number | null = null;
  if (rawPort !== null) {
    const value = Number(rawPort);
    if (!Number.isInteger(value) || value < 1 || value > 65535) problems.push(`METRICS_PORT must be an integer from 1 to 65535 (got "${rawPort}")`);
    else if (value === port) problems.push(`METRICS_PORT must differ from PORT (${port}): /metrics on the main port is METRICS_TOKEN's`);
    else metricsPort = value;
  }
  const host = env.METRICS_HOST?.trim() || '127.0.0.1';
  const rawPerApp = env.METRICS_PER_APP?.trim().toLowerCase() || null;
  if (rawPerApp !== null && !TRUE_VALUES.includes(rawPerApp) && !FALSE_VALUES.includes(rawPerApp)) {
    problems.push(`METRICS_PER_APP must be true or false (got "${rawPerApp}")`);
  }
  return { enabled: token !== null || metricsPort !== null, token, port: metricsPort, host, perApp: rawPerApp !== null && TRUE_VALUES.includes(rawPerApp) };
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/** The OpenTelemetry settings Tollbooth reads (OTEL_*, the SDK's own names; issue 58). */
export function readTracing(env: Env, problems: string[]): TracingConfig {
  const value = (name: string) => env[name]?.trim() || null;
  const url = (name: string, raw: string): string | null => {
    try {
      const parsed = new URL(raw);
      if (/^https?:$/.test(parsed.protocol)) return raw;
    } catch {}
    problems.push(`${name} must be an http(s) URL (got "${raw}")`);
    return null;
  };
  const disabled = TRUE_VALUES.includes(value('OTEL_SDK_DISABLED')?.toLowerCase() ?? '');
  const tracesEndpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  let tracesUrl: string | null = null;
  if (tracesEndpoint !== null) tracesUrl = url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint);
  else if (endpoint !== null) {
    const base = url('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint);
    tracesUrl = base === null ? null : `${base.replace(/\/+$/, '')}/v1/traces`;
  }
  const headers: Record<string, string> = {};
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
    for (const pair of (value(name) ?? '').split(',').filter((part) => part.trim())) {
      const at = pair.indexOf('=');
      if (at <= 0) {
        problems.push(`${name} must be comma-separated name=value pairs (got "${pair.trim()}")`);
        continue;
      }
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    }
  }
  // Spans leave as OTLP/HTTP, protobuf by default as the specification has it (decision 0150), or
  // JSON (decision 0114): a collector's OTLP/HTTP port takes both. gRPC is not spoken.
  let protocol: TracingConfig['protocol'] = 'http/protobuf';
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const given = value(name);
    if (given === null) continue;
    if (given === 'http/protobuf' || given === 'http/json') protocol = given;
    else problems.push(`${name} must be http/protobuf or http/json: Tollbooth exports OTLP over HTTP, not gRPC (got "${given}")`);
  }
  const sampler = value('OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  if (!SAMPLERS.includes(sampler)) problems.push(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')} (got "${sampler}")`);
  const rawRatio = value('OTEL_TRACES_SAMPLER_ARG');
  let samplerRatio = 1;
  if (rawRatio !== null) {
    samplerRatio = Number(rawRatio);
    if (!Number.isFinite(samplerRatio) || samplerRatio < 0 || samplerRatio > 1) {
      problems.push(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 (got "${rawRatio}")`);
      samplerRatio = 1;
    }
  }
  return { tracesUrl: disabled ? null : tracesUrl, headers, serviceName: value('OTEL_SERVICE_NAME') ?? 'tollbooth', sampler, samplerRatio, protocol };
}
