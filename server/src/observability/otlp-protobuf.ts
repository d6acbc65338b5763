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

// A span is written straight into its batch, at a position kept in a local variable that each
// helper takes and answers (V8 keeps it in a register across the inlined helpers): a traced call's
// CPU profile had its five spans' encoding at ~9.8 µs in the gateway bench, byte stores through a
// module-level position into a scratch buffer and a copy of each span into the batch. Room is checked
// once per field against a bound of what it can take; a field that would pass the span's or the
// batch's end stops the span there (answered as not fitting), nothing is written past either.

const TWO_32 = 0x1_0000_0000;

/** Writes a length at `lengthAt` for the bytes after it up to `at`; a length over 127 takes more bytes, so the content moves right. Answers the new end. */
function closeField(b: Buffer, lengthAt: number, at: number): number {
  const length = at - lengthAt - 1;
  if (length < 0x80) {
    b[lengthAt] = length;
    return at;
  }
  let extra = 0;
  for (let rest = length >> 7; rest > 0; rest >>= 7) extra++;
  b.copyWithin(lengthAt + 1 + extra, lengthAt + 1, at);
  let rest = length;
  let to = lengthAt;
  while (rest >= 0x80) {
    b[to++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  b[to] = rest;
  return at + extra;
}

function varintAt(b: Buffer, at: number, value: number): number {
  while (value >= 0x80) {
    b[at++] = (value % 0x80) | 0x80;
    value = Math.floor(value / 0x80);
  }
  b[at++] = value;
  return at;
}

/** int64 as protobuf's varint: a negative value is its 64-bit two's complement (ten bytes). */
function int64At(b: Buffer, at: number, value: number): number {
  if (value >= 0) return varintAt(b, at, value);
  let rest = BigInt.asUintN(64, BigInt(value));
  while (rest >= 0x80n) {
    b[at++] = Number(rest & 0x7fn) | 0x80;
    rest >>= 7n;
  }
  b[at++] = Number(rest);
  return at;
}

/** A string field (at most value.length × 3 + 4 bytes): ASCII character by character (a native write per short string costs more), else UTF-8 by Buffer#write. */
function stringAt(b: Buffer, at: number, tag: number, value: string): number {
  b[at++] = tag;
  const lengthAt = at++;
  const start = at;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x80) return closeField(b, lengthAt, start + b.write(value, start, 'utf8'));
    b[at++] = code;
  }
  return closeField(b, lengthAt, at);
}

/** A 32-bit word's four bytes, most significant first (the order of the id's hex digits). */
function wordAt(b: Buffer, at: number, value: number): number {
  b[at] = value >>> 24;
  b[at + 1] = (value >>> 16) & 0xff;
  b[at + 2] = (value >>> 8) & 0xff;
  b[at + 3] = value & 0xff;
  return at + 4;
}

/** Bytes encoded earlier (a cached field). */
function copyAt(b: Buffer, at: number, bytes: Uint8Array): number {
  // By hand: TypedArray#set is a native call that costs more than the copy of a field's few dozen bytes.
  const length = bytes.length;
  for (let i = 0; i < length; i++) b[at + i] = bytes[i]!;
  return at + length;
}

/** Epoch milliseconds (with a fraction) as a fixed64 field of nanoseconds, to the microsecond, exactly (9 bytes). */
function nanosAt(b: Buffer, at: number, tag: number, ms: number): number {
  const micros = Math.round(ms * 1000);
  const high = Math.floor(micros / TWO_32);
  const product = (micros - high * TWO_32) * 1000;
  const carry = Math.floor(product / TWO_32);
  const low = product - carry * TWO_32;
  const top = high * 1000 + carry;
  b[at] = tag;
  b[at + 1] = low & 0xff;
  b[at + 2] = (low >>> 8) & 0xff;
  b[at + 3] = (low >>> 16) & 0xff;
  b[at + 4] = low >>> 24;
  b[at + 5] = top & 0xff;
  b[at + 6] = (top >>> 8) & 0xff;
  b[at + 7] = (top >>> 16) & 0xff;
  b[at + 8] = top >>> 24;
  return at + 9;
}

/** The most bytes a value's AnyValue content takes (its own tag, length and content, with room for longer lengths). */
function valueBound(value: AttributeValue): number {
  switch (typeof value) {
    case 'string':
      return value.length * 3 + 6;
    case 'number':
    case 'boolean':
      return 12;
    default: {
      let bound = 6;
      for (const item of value as unknown[]) if (item !== null && item !== undefined) bound += valueBound(item as AttributeValue) + 6;
      return bound;
    }
  }
}

function anyValueAt(b: Buffer, at: number, value: AttributeValue): number {
  switch (typeof value) {
    case 'string':
      return stringAt(b, at, 0x0a, value);
    case 'boolean':
      b[at] = 0x10;
      b[at + 1] = value ? 1 : 0;
      return at + 2;
    case 'number':
      if (Number.isSafeInteger(value)) {
        b[at] = 0x18;
        return int64At(b, at + 1, value);
      }
      b[at] = 0x21;
      b.writeDoubleLE(value, at + 1);
      return at + 9;
    default: {
      b[at++] = 0x2a;
      const arrayAt = at++;
      for (const item of value as unknown[]) {
        if (item === null || item === undefined) continue;
        b[at++] = 0x0a;
        const entryAt = at++;
        at = closeField(b, entryAt, anyValueAt(b, at, item as AttributeValue));
      }
      return closeField(b, arrayAt, at);
    }
  }
}

// The attribute keys and span names repeat from span to span: each one's whole field (tag, length,
// UTF-8) is made once and copied (a bounded cache per tag; a key or name past it is written as it comes).
const KEY_FIELDS = new Map<string, Uint8Array>();
const NAME_FIELDS = new Map<string, Uint8Array>();
const CACHED_FIELDS = 1000;

/** A string field's bytes to cache, or null when the cache is full or the string long. */
function fieldToCache(cache: Map<string, Uint8Array>, tag: number, value: string): Uint8Array | null {
  if (cache.size >= CACHED_FIELDS || value.length > 100) return null;
  const content = Buffer.from(value, 'utf8');
  const bytes = Uint8Array.from([tag, ...varintBytes(content.length), ...content]);
  cache.set(value, bytes);
  return bytes;
}

/** A KeyValue field (Span.attributes, tag 0x4a) of `key` and `value`; room for keyValueBound bytes is checked. */
function keyValueAt(b: Buffer, at: number, key: string, value: AttributeValue): number {
  b[at++] = 0x4a;
  const pairAt = at++;
  const keyField = KEY_FIELDS.get(key) ?? fieldToCache(KEY_FIELDS, 0x0a, key);
  at = keyField ? copyAt(b, at, keyField) : stringAt(b, at, 0x0a, key);
  b[at++] = 0x12;
  const valueAt = at++;
  at = closeField(b, valueAt, anyValueAt(b, at, value));
  return closeField(b, pairAt, at);
}

const keyValueBound = (key: string, value: AttributeValue) => key.length * 3 + valueBound(value) + 16;

// Most attributes repeat whole from call to call (the route, the method, the model, the app kind,
// the outcome, the price): each key keeps the encoded KeyValue fields of up to VALUES_PER_KEY of its
// values (strings up to 64 characters, numbers, booleans), copied as they are. A key that takes more
// values than that (a request id, token counts) is written each time, without looking its values up.
const PAIRS = new Map<string, Map<AttributeValue, Uint8Array> | null>();
const VALUES_PER_KEY = 32;

/** Appends a span as a ScopeSpans.spans field at `offset` of batch `b`: answers the new end, -1 when it does not fit in what is left of `b`, null when it is larger than MAX_SPAN_BYTES. */
export function appendSpanField(b: Buffer, offset: number, span: RecordedSpan): number | null {
  // The span's length takes two bytes (128 to 16,383 bytes, most spans); another length moves it.
  const begin = offset + 3;
  const spanEnd = begin + MAX_SPAN_BYTES;
  const limit = Math.min(b.length, spanEnd);
  // Not fitting: null past the span's own bound, -1 past the batch's (no closure: the build names each one it makes).
  const noRoom = limit === spanEnd ? null : -1;
  // Ids, state, parent, kind and times: 18 + 10 + 10 + 2 + 18, the state and the name checked apart.
  if (begin + 58 > limit) return noRoom;
  let at = begin;
  b[at] = 0x0a;
  b[at + 1] = 16;
  at = wordAt(b, at + 2, span.t0);
  at = wordAt(b, at, span.t1);
  at = wordAt(b, at, span.t2);
  at = wordAt(b, at, span.t3);
  b[at] = 0x12;
  b[at + 1] = 8;
  at = wordAt(b, at + 2, span.s0);
  at = wordAt(b, at, span.s1);
  if (span.traceState) {
    if (at + span.traceState.length * 3 + 62 > limit) return noRoom;
    at = stringAt(b, at, 0x1a, span.traceState);
  }
  if (span.p0 !== 0 || span.p1 !== 0) {
    b[at] = 0x22;
    b[at + 1] = 8;
    at = wordAt(b, at + 2, span.p0);
    at = wordAt(b, at, span.p1);
  }
  const name = span.name;
  const nameField = NAME_FIELDS.get(name) ?? fieldToCache(NAME_FIELDS, 0x2a, name);
  if (at + (nameField ? nameField.length : name.length * 3 + 4) + 20 > limit) return noRoom;
  at = nameField ? copyAt(b, at, nameField) : stringAt(b, at, 0x2a, name);
  b[at] = 0x30;
  // OTLP's SpanKind counts from UNSPECIFIED = 0; the API's from INTERNAL = 0.
  b[at + 1] = span.kind + 1;
  at = nanosAt(b, at + 2, 0x39, span.startMs);
  at = nanosAt(b, at, 0x41, span.endMs);
  const list = span.attributeList;
  for (let i = 0; i < list.length; i += 2) {
    const value = list[i + 1];
    if (value === undefined || value === null) continue;
    const key = list[i] as string;
    let values = PAIRS.get(key);
    if (values === undefined && PAIRS.size < CACHED_FIELDS) {
      values = new Map();
      PAIRS.set(key, values);
    }
    const cached = values ? values.get(value) : undefined;
    if (cached !== undefined) {
      if (at + cached.length > limit) return noRoom;
      at = copyAt(b, at, cached);
      continue;
    }
    if (at + keyValueBound(key, value) > limit) return noRoom;
    const from = at;
    at = keyValueAt(b, at, key, value);
    if (!values || !(typeof value === 'string' ? value.length <= 64 : typeof value === 'number' || typeof value === 'boolean')) continue;
    // A copy (Buffer#subarray is a view of the batch, which is written over once exported).
    if (values.size < VALUES_PER_KEY) values.set(value, Uint8Array.prototype.slice.call(b, from, at));
    else PAIRS.set(key, null);
  }
  const status = span.status;
  if (status.code !== 0 || status.message) {
    if (at + (status.message ? status.message.length * 3 : 0) + 16 > limit) return noRoom;
    b[at++] = 0x7a;
    const statusAt = at++;
    if (status.message) at = stringAt(b, at, 0x12, status.message);
    if (status.code !== 0) {
      b[at] = 0x18;
      b[at + 1] = status.code;
      at += 2;
    }
    at = closeField(b, statusAt, at);
  }
  // The ScopeSpans.spans field's tag and length, the span moved when its length is not two bytes long.
  const length = at - begin;
  b[offset] = 0x12;
  if (length < 0x80) {
    b[offset + 1] = length;
    for (let i = 0; i < length; i++) b[offset + 2 + i] = b[begin + i]!;
    return offset + 2 + length;
  }
  if (length < 0x4000) {
    b[offset + 1] = (length & 0x7f) | 0x80;
    b[offset + 2] = length >>> 7;
    return at;
  }
  if (at + 1 > limit) return noRoom;
  b.copyWithin(begin + 1, begin, at);
  b[offset + 1] = (length & 0x7f) | 0x80;
  b[offset + 2] = ((length >>> 7) & 0x7f) | 0x80;
  b[offset + 3] = length >>> 14;
  return at + 1;
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
