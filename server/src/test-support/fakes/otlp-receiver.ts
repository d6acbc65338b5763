// A small OTLP/HTTP trace receiver on 127.0.0.1 (issue 58's tests): POST /v1/traces with an
// ExportTraceServiceRequest in protobuf (what Tollbooth sends by default, as OpenTelemetry's own
// proto exporter does) or OTLP's JSON mapping (OTEL_EXPORTER_OTLP_PROTOCOL=http/json). The
// protobuf is read with a wire-format reader written here for the fields a test checks (trace and
// span ids, parent, name, kind, attributes, status), after opentelemetry-proto's trace.proto.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, Value>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The status message ('' without one). */
  statusMessage: string;
  /** OTLP's nanoseconds since the epoch, in decimal. */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  serviceName: string;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:port, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Content types of the exports received. */
  contentTypes: string[];
  close(): Promise<void>;
}

type Field = { number: number; wire: number; value: bigint | Buffer };

/** The fields of one protobuf message, in order. */
function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ number, wire, value: varint() });
    else if (wire === 1) {
      out.push({ number, wire, value: buffer.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ number, wire, value: buffer.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      out.push({ number, wire, value: buffer.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const bytes = (field: Field) => field.value as Buffer;

type Value = string | number | boolean | Value[];

/** AnyValue: string 1, bool 2, int 3, double 4, array 5 (ArrayValue: values 1). */
function anyValue(buffer: Buffer): Value {
  for (const field of fields(buffer)) {
    if (field.number === 1) return bytes(field).toString('utf8');
    if (field.number === 2) return (field.value as bigint) !== 0n;
    if (field.number === 3) return Number(BigInt.asIntN(64, field.value as bigint));
    if (field.number === 4) return bytes(field).readDoubleLE(0);
    if (field.number === 5)
      return fields(bytes(field))
        .filter((item) => item.number === 1)
        .map((item) => anyValue(bytes(item)));
  }
  return '';
}

function keyValues(list: Buffer[]): Record<string, Value> {
  const attributes: Record<string, Value> = {};
  for (const buffer of list) {
    let key = '';
    let value: Value = '';
    for (const field of fields(buffer)) {
      if (field.number === 1) key = bytes(field).toString('utf8');
      else if (field.number === 2) value = anyValue(bytes(field));
    }
    attributes[key] = value;
  }
  return attributes;
}

function decodeSpan(buffer: Buffer, serviceName: string): ReceivedSpan {
  const span: ReceivedSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    attributes: {},
    statusCode: 0,
    statusMessage: '',
    startTimeUnixNano: '',
    endTimeUnixNano: '',
    serviceName,
  };
  const attributes: Buffer[] = [];
  for (const field of fields(buffer)) {
    if (field.number === 1) span.traceId = bytes(field).toString('hex');
    else if (field.number === 2) span.spanId = bytes(field).toString('hex');
    else if (field.number === 4) span.parentSpanId = bytes(field).toString('hex');
    else if (field.number === 5) span.name = bytes(field).toString('utf8');
    else if (field.number === 6) span.kind = Number(field.value);
    else if (field.number === 7) span.startTimeUnixNano = bytes(field).readBigUInt64LE(0).toString();
    else if (field.number === 8) span.endTimeUnixNano = bytes(field).readBigUInt64LE(0).toString();
    else if (field.number === 9) attributes.push(bytes(field));
    else if (field.number === 15)
      for (const status of fields(bytes(field))) {
        if (status.number === 3) span.statusCode = Number(status.value);
        else if (status.number === 2) span.statusMessage = bytes(status).toString('utf8');
      }
  }
  if (span.traceId.length !== 32 || span.spanId.length !== 16) throw new Error(`span ids must be 16 and 8 bytes: ${span.traceId} ${span.spanId}`);
  if (span.startTimeUnixNano === '' || BigInt(span.endTimeUnixNano) < BigInt(span.startTimeUnixNano))
    throw new Error('span times must be fixed64 nanoseconds, end after start');
  span.attributes = keyValues(attributes);
  return span;
}

/** ExportTraceServiceRequest → ResourceSpans (1) → Resource (1), ScopeSpans (2) → Span (2). */
export function decodeTraceRequest(buffer: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of fields(buffer).filter((field) => field.number === 1)) {
    const parts = fields(bytes(resourceSpans));
    const resource = parts.find((field) => field.number === 1);
    const resourceAttributes = resource
      ? keyValues(
          fields(bytes(resource))
            .filter((f) => f.number === 1)
            .map(bytes),
        )
      : {};
    const serviceName = String(resourceAttributes['service.name'] ?? '');
    for (const scopeSpans of parts.filter((field) => field.number === 2)) {
      for (const span of fields(bytes(scopeSpans)).filter((field) => field.number === 2)) spans.push(decodeSpan(bytes(span), serviceName));
    }
  }
  return spans;
}

type JsonValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: JsonValue[] } };
type JsonKeyValue = { key: string; value: JsonValue };

function jsonValue(value: JsonValue): Value {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(jsonValue);
  return '';
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, Value> {
  const attributes: Record<string, Value> = {};
  for (const { key, value } of list ?? []) attributes[key] = jsonValue(value);
  return attributes;
}

const HEX_ID = /^[0-9a-f]+$/;

/** The same request in OTLP's JSON mapping: ids must be hex (not base64, as protobuf's own JSON would have them). */
export function decodeJsonTraceRequest(body: {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: JsonKeyValue[];
        status?: { code?: number; message?: string };
        startTimeUnixNano: string;
        endTimeUnixNano: string;
      }[];
    }[];
  }[];
}): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const serviceName = String(jsonAttributes(resourceSpans.resource?.attributes)['service.name'] ?? '');
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        if (span.traceId.length !== 32 || span.spanId.length !== 16 || !HEX_ID.test(span.traceId + span.spanId))
          throw new Error(`span ids must be hex: ${span.traceId} ${span.spanId}`);
        if (!/^\d+$/.test(span.startTimeUnixNano) || BigInt(span.endTimeUnixNano) < BigInt(span.startTimeUnixNano))
          throw new Error('span times must be nanoseconds, end after start');
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: jsonAttributes(span.attributes),
          statusCode: span.status?.code ?? 0,
          statusMessage: span.status?.message ?? '',
          startTimeUnixNano: span.startTimeUnixNano,
          endTimeUnixNano: span.endTimeUnixNano,
          serviceName,
        });
      }
    }
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const type = request.headers['content-type'] ?? '';
      contentTypes.push(type);
      try {
        if (type.includes('protobuf')) spans.push(...decodeTraceRequest(Buffer.concat(chunks)));
        else if (type.includes('json')) spans.push(...decodeJsonTraceRequest(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        else throw new Error(`unexpected content type ${type}`);
        // An empty ExportTraceServiceResponse.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
