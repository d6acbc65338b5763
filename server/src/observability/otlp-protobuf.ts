// OTLP's protobuf encoding of spans (opentelemetry-proto: trace/v1/trace.proto and
// collector/trace/v1/trace_service.proto), written straight into Buffers: OTLP/HTTP's default body
// (Content-Type application/x-protobuf). Against the JSON mapping it writes no text for the ids, the
// times and the numbers, makes no intermediate strings, and sends about half the bytes (decision 0150).
//
// Field numbers and wire types (tag = field << 3 | wire type; 0 varint, 1 fixed64, 2 length-delimited):
//   ExportTraceServiceRequest { ResourceSpans resource_spans = 1; }
//   ResourceSpans { Resource resource = 1; ScopeSpans scope_spans = 2; }
//   Resource { KeyValue attributes = 1; }
//   ScopeSpans { InstrumentationScope scope = 1; Span spans = 2; }
//   InstrumentationScope { string name = 1; }
//   Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
//          string name = 5; SpanKind kind = 6; fixed64 start_time_unix_nano = 7;
//          fixed64 end_time_unix_nano = 8; KeyValue attributes = 9; Status status = 15; }
//   Status { string message = 2; StatusCode code = 3; }
//   KeyValue { string key = 1; AnyValue value = 2; }
//   AnyValue { string string_value = 1; bool bool_value = 2; int64 int_value = 3;
//              double double_value = 4; ArrayValue array_value = 5; }
//   ArrayValue { AnyValue values = 1; }
import type { AttributeValue } from '@opentelemetry/api';
import type { RecordedSpan } from '../platform/tracing.ts';

/** A span larger than this is not exported (counted as dropped). */
export const MAX_SPAN_BYTES = 64 * 1024;

// One span is written here first (its length prefixes patched in place), then copied into its batch.
const scratch = Buffer.allocUnsafe(MAX_SPAN_BYTES + 64);
let at = 0;
/** Set when a span did not fit in the scratch buffer: the span is dropped. */
let overflow = false;

const TWO_32 = 0x1_0000_0000;

function room(bytes: number): boolean {
  if (at + bytes > MAX_SPAN_BYTES) overflow = true;
  return !overflow;
}

function varint(value: number): void {
  if (!room(10)) return;
  while (value >= 0x80) {
    scratch[at++] = (value % 0x80) | 0x80;
    value = Math.floor(value / 0x80);
  }
  scratch[at++] = value;
}

/** int64 as protobuf's varint: a negative value is its 64-bit two's complement (ten bytes). */
function int64(value: number): void {
  if (value >= 0) {
    varint(value);
    return;
  }
  if (!room(10)) return;
  let rest = BigInt.asUintN(64, BigInt(value));
  while (rest >= 0x80n) {
    scratch[at++] = Number(rest & 0x7fn) | 0x80;
    rest >>= 7n;
  }
  scratch[at++] = Number(rest);
}

/** Starts a length-delimited field: its tag and one byte for its length, patched by `close`. */
function open(tag: number): number {
  if (!room(2)) return at;
  scratch[at++] = tag;
  return at++;
}

/** Writes the length of what was written since `open`; a length over 127 takes more bytes, so the content moves. */
function close(lengthAt: number): void {
  if (overflow) return;
  const length = at - lengthAt - 1;
  if (length < 0x80) {
    scratch[lengthAt] = length;
    return;
  }
  let extra = 0;
  for (let rest = length >> 7; rest > 0; rest >>= 7) extra++;
  if (!room(extra)) return;
  scratch.copyWithin(lengthAt + 1 + extra, lengthAt + 1, at);
  at += extra;
  let rest = length;
  let to = lengthAt;
  while (rest >= 0x80) {
    scratch[to++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  scratch[to] = rest;
}

function string(tag: number, value: string): void {
  // Short strings (almost all of them) fit the one length byte whatever their characters: no length pass.
  if (value.length * 3 >= MAX_SPAN_BYTES) {
    overflow = true;
    return;
  }
  const lengthAt = open(tag);
  if (!room(value.length * 3)) return;
  // Character by character while ASCII (a native write per short string costs more than the copy).
  const start = at;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x80) {
      at = start + scratch.write(value, start, 'utf8');
      close(lengthAt);
      return;
    }
    scratch[at++] = code;
  }
  close(lengthAt);
}

/** A 32-bit word's four bytes, most significant first (the order of the id's hex digits). */
function word(value: number): void {
  scratch[at++] = value >>> 24;
  scratch[at++] = (value >>> 16) & 0xff;
  scratch[at++] = (value >>> 8) & 0xff;
  scratch[at++] = value & 0xff;
}

/** A length-delimited field of the ids' words (8 or 16 bytes). */
function id(tag: number, w0: number, w1: number): void {
  if (!room(10)) return;
  scratch[at++] = tag;
  scratch[at++] = 8;
  word(w0);
  word(w1);
}

function traceIdField(span: RecordedSpan): void {
  if (!room(18)) return;
  scratch[at++] = 0x0a;
  scratch[at++] = 16;
  word(span.t0);
  word(span.t1);
  word(span.t2);
  word(span.t3);
}

// The attribute keys and span names repeat from span to span: each one's whole field (tag, length,
// UTF-8) is made once and copied (a bounded cache per tag; a key or name past it is written as it comes).
const KEY_FIELDS = new Map<string, Uint8Array>();
const NAME_FIELDS = new Map<string, Uint8Array>();
const CACHED_FIELDS = 1000;

/** Copies bytes encoded earlier (a cached field) into the span. */
function copy(bytes: Uint8Array): void {
  if (!room(bytes.length)) return;
  for (let i = 0; i < bytes.length; i++) scratch[at++] = bytes[i]!;
}

function cachedString(cache: Map<string, Uint8Array>, tag: number, value: string): void {
  let bytes = cache.get(value);
  if (bytes === undefined) {
    if (cache.size >= CACHED_FIELDS || value.length > 100) {
      string(tag, value);
      return;
    }
    const content = Buffer.from(value, 'utf8');
    bytes = Uint8Array.from([tag, ...varintBytes(content.length), ...content]);
    cache.set(value, bytes);
  }
  copy(bytes);
}

/** Epoch milliseconds (with a fraction) as fixed64 nanoseconds, to the microsecond, exactly. */
function fixed64Nanos(tag: number, ms: number): void {
  if (!room(9)) return;
  const micros = Math.round(ms * 1000);
  const high = Math.floor(micros / TWO_32);
  const low = (micros - high * TWO_32) * 1000;
  const carry = Math.floor(low / TWO_32);
  scratch[at++] = tag;
  scratch.writeUInt32LE(low - carry * TWO_32, at);
  scratch.writeUInt32LE(high * 1000 + carry, at + 4);
  at += 8;
}

function anyValue(value: AttributeValue): void {
  switch (typeof value) {
    case 'string':
      string(0x0a, value);
      return;
    case 'boolean':
      if (!room(2)) return;
      scratch[at++] = 0x10;
      scratch[at++] = value ? 1 : 0;
      return;
    case 'number':
      if (Number.isSafeInteger(value)) {
        if (!room(1)) return;
        scratch[at++] = 0x18;
        int64(value);
        return;
      }
      if (!room(9)) return;
      scratch[at++] = 0x21;
      scratch.writeDoubleLE(value, at);
      at += 8;
      return;
    default: {
      const array = open(0x2a);
      for (const item of value as unknown[]) {
        if (item === null || item === undefined) continue;
        const entry = open(0x0a);
        anyValue(item as AttributeValue);
        close(entry);
      }
      close(array);
    }
  }
}

function keyValue(tag: number, key: string, value: AttributeValue): void {
  const pair = open(tag);
  cachedString(KEY_FIELDS, 0x0a, key);
  const inner = open(0x12);
  anyValue(value);
  close(inner);
  close(pair);
}

// Most attributes repeat whole from call to call (the route, the method, the model, the app kind,
// the outcome, the price): each key keeps the encoded KeyValue fields of up to VALUES_PER_KEY of its
// values (strings up to 64 characters, numbers, booleans), copied as they are. A key that takes more
// values than that (a request id, token counts) is written each time, without looking its values up.
const PAIRS = new Map<string, Map<AttributeValue, Uint8Array> | null>();
const VALUES_PER_KEY = 32;

function attribute(key: string, value: AttributeValue): void {
  let values = PAIRS.get(key);
  if (values === undefined && PAIRS.size < CACHED_FIELDS) {
    values = new Map();
    PAIRS.set(key, values);
  }
  if (!values) {
    keyValue(0x4a, key, value);
    return;
  }
  const bytes = values.get(value);
  if (bytes !== undefined) {
    copy(bytes);
    return;
  }
  const from = at;
  keyValue(0x4a, key, value);
  if (overflow || !(typeof value === 'string' ? value.length <= 64 : typeof value === 'number' || typeof value === 'boolean')) return;
  // A copy (Buffer#slice is a view of the scratch buffer, which the next span overwrites).
  if (values.size < VALUES_PER_KEY) values.set(value, Uint8Array.prototype.slice.call(scratch, from, at));
  else PAIRS.set(key, null);
}

/** Encodes one span; answers its bytes (a view of a shared buffer, valid until the next call), or null when it is too large. */
export function spanProtobuf(span: RecordedSpan): Buffer | null {
  at = 0;
  overflow = false;
  traceIdField(span);
  id(0x12, span.s0, span.s1);
  if (span.traceState) string(0x1a, span.traceState);
  if (span.p0 !== 0 || span.p1 !== 0) id(0x22, span.p0, span.p1);
  cachedString(NAME_FIELDS, 0x2a, span.name);
  if (room(2)) {
    scratch[at++] = 0x30;
    // OTLP's SpanKind counts from UNSPECIFIED = 0; the API's from INTERNAL = 0.
    scratch[at++] = span.kind + 1;
  }
  fixed64Nanos(0x39, span.startMs);
  fixed64Nanos(0x41, span.endMs);
  const list = span.attributeList;
  for (let i = 0; i < list.length; i += 2) {
    const value = list[i + 1];
    if (value === undefined || value === null) continue;
    attribute(list[i] as string, value);
  }
  if (span.status.code !== 0 || span.status.message) {
    const status = open(0x7a);
    if (span.status.message) string(0x12, span.status.message);
    if (span.status.code !== 0 && room(2)) {
      scratch[at++] = 0x18;
      scratch[at++] = span.status.code;
    }
    close(status);
  }
  return overflow ? null : scratch.subarray(0, at);
}

function varintBytes(value: number): number[] {
  const bytes: number[] = [];
  while (value >= 0x80) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return bytes;
}

/** A length-delimited field of `content`. */
const field = (tag: number, content: Buffer) => Buffer.concat([Buffer.from([tag, ...varintBytes(content.length)]), content]);

/**
 * The ExportTraceServiceRequest's bytes before a batch of spans (each already a ScopeSpans.spans
 * field): its nested lengths depend on the batch's, so it is made per export.
 */
export function protobufHead(serviceName: string): (spansBytes: number) => Buffer {
  const resource = field(0x0a, field(0x0a, Buffer.concat([field(0x0a, Buffer.from('service.name')), field(0x12, field(0x0a, Buffer.from(serviceName)))])));
  const scope = field(0x0a, field(0x0a, Buffer.from('tollbooth')));
  return (spansBytes) => {
    const scopeSpans = scope.length + spansBytes;
    const scopeSpansField = 1 + varintBytes(scopeSpans).length + scopeSpans;
    const resourceSpans = resource.length + scopeSpansField;
    return Buffer.from([0x0a, ...varintBytes(resourceSpans), ...resource, 0x12, ...varintBytes(scopeSpans), ...scope]);
  };
}

/** Appends a span's bytes as a ScopeSpans.spans field at `offset` of `batch`; answers the new end, or -1 when it does not fit. */
export function writeSpanField(batch: Buffer, offset: number, span: Buffer): number {
  let length = span.length;
  let prefix = 2;
  for (let rest = length >> 7; rest > 0; rest >>= 7) prefix++;
  if (offset + prefix + length > batch.length) return -1;
  batch[offset++] = 0x12;
  while (length >= 0x80) {
    batch[offset++] = (length & 0x7f) | 0x80;
    length >>>= 7;
  }
  batch[offset++] = length;
  span.copy(batch, offset);
  return offset + span.length;
}
